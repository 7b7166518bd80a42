import { addComponent } from 'bitecs';
import { Plane, Quaternion, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { SectionPlane } from '../../../components';
import { addTransform } from '../../../src/engine/hierarchy';
import { addViewerEntity, createViewerWorld } from '../../../src/engine/world';
import { sectionPlaneSystem } from '../../../systems/sectionPlaneSystem';
import { transformSystem } from '../../../systems/transformSystem';

describe('sectionPlaneSystem', () => {
  it('derives the plane from the Transform: +Z turned onto the normal, through the position', () => {
    const world = createViewerWorld();
    const eid = addViewerEntity(world);
    const normal = new Vector3(1, 1, 0).normalize();
    const rotation = new Quaternion().setFromUnitVectors(new Vector3(0, 0, 1), normal);
    addTransform(world, eid, 0, [2, 0, 1], rotation.toArray());
    addComponent(world, eid, SectionPlane);
    transformSystem(world);
    sectionPlaneSystem(world);
    const expected = new Plane().setFromNormalAndCoplanarPoint(normal, new Vector3(2, 0, 1));
    expect(SectionPlane.normal[eid * 3]).toBeCloseTo(expected.normal.x, 6);
    expect(SectionPlane.normal[eid * 3 + 1]).toBeCloseTo(expected.normal.y, 6);
    expect(SectionPlane.normal[eid * 3 + 2]).toBeCloseTo(expected.normal.z, 6);
    expect(SectionPlane.constant[eid]).toBeCloseTo(expected.constant, 6);
    expect(SectionPlane.changed[eid]).toBe(1);
  });

  it('leaves planes whose world matrix did not change alone', () => {
    const world = createViewerWorld();
    const eid = addViewerEntity(world);
    addTransform(world, eid, 0, [0, 3, 0]);
    addComponent(world, eid, SectionPlane);
    transformSystem(world);
    sectionPlaneSystem(world);
    SectionPlane.changed[eid] = 0;
    transformSystem(world);
    sectionPlaneSystem(world);
    expect(SectionPlane.changed[eid]).toBe(0);
    expect(SectionPlane.constant[eid]).toBeCloseTo(-0, 6);
  });
});
