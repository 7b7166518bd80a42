import { Group, Mesh, Object3D } from 'three';
import { describe, expect, it } from 'vitest';
import { bindObject, findEntityOf, getEid, getObject, unbindObject } from '../../../src/engine/registry';
import { addViewerEntity, createViewerWorld } from '../../../src/engine/world';

describe('bindObject', () => {
  it('links an entity and its object both ways', () => {
    const world = createViewerWorld();
    const eid = addViewerEntity(world);
    const object = new Object3D();
    bindObject(world, eid, object);
    expect(getObject(world, eid)).toBe(object);
    expect(world.objects[eid]).toBe(object);
    expect(object.userData.eid).toBe(eid);
    expect(getEid(object)).toBe(eid);
  });

  it('refuses entity 0', () => {
    const world = createViewerWorld();
    expect(() => bindObject(world, 0, new Object3D())).toThrow('Entity 0 means "none" and cannot own an object.');
    expect(world.objects.length).toBe(0);
  });

  it('refuses to bind an entity to a second object', () => {
    const world = createViewerWorld();
    const eid = addViewerEntity(world);
    const first = new Object3D();
    first.name = 'first';
    const second = new Object3D();
    bindObject(world, eid, first);
    expect(() => bindObject(world, eid, second)).toThrow(`Entity ${eid} is already bound to another object ("first").`);
    expect(getObject(world, eid)).toBe(first);
    expect(getEid(second)).toBe(0);
  });

  it('accepts binding the same pair again', () => {
    const world = createViewerWorld();
    const eid = addViewerEntity(world);
    const object = new Object3D();
    bindObject(world, eid, object);
    bindObject(world, eid, object);
    expect(getObject(world, eid)).toBe(object);
    expect(getEid(object)).toBe(eid);
  });

  it('refuses to bind an object that another entity owns', () => {
    const world = createViewerWorld();
    const a = addViewerEntity(world);
    const b = addViewerEntity(world);
    const object = new Object3D();
    object.name = 'shared';
    bindObject(world, a, object);
    expect(() => bindObject(world, b, object)).toThrow(`Object "shared" is already bound to entity ${a}.`);
    expect(getObject(world, a)).toBe(object);
    expect(getObject(world, b)).toBeUndefined();
    expect(getEid(object)).toBe(a);
  });

  it('binds a clone of a bound object (userData is copied by clone) to its own entity', () => {
    const world = createViewerWorld();
    const a = addViewerEntity(world);
    const b = addViewerEntity(world);
    const original = new Object3D();
    bindObject(world, a, original);
    const copy = original.clone();
    expect(copy.userData.eid).toBe(a);
    bindObject(world, b, copy);
    expect(getEid(copy)).toBe(b);
    expect(getEid(original)).toBe(a);
    expect(getObject(world, a)).toBe(original);
    expect(getObject(world, b)).toBe(copy);
  });

  it('keeps worlds apart', () => {
    const w1 = createViewerWorld();
    const w2 = createViewerWorld();
    const o1 = new Object3D();
    const o2 = new Object3D();
    bindObject(w1, addViewerEntity(w1), o1);
    bindObject(w2, addViewerEntity(w2), o2);
    expect(getObject(w1, 1)).toBe(o1);
    expect(getObject(w2, 1)).toBe(o2);
  });
});

describe('unbindObject', () => {
  it('removes both links and returns the object', () => {
    const world = createViewerWorld();
    const eid = addViewerEntity(world);
    const object = new Object3D();
    bindObject(world, eid, object);
    expect(unbindObject(world, eid)).toBe(object);
    expect(getObject(world, eid)).toBeUndefined();
    expect('eid' in object.userData).toBe(false);
    expect(getEid(object)).toBe(0);
  });

  it('returns undefined for an entity without an object', () => {
    const world = createViewerWorld();
    const eid = addViewerEntity(world);
    expect(unbindObject(world, eid)).toBeUndefined();
    expect(unbindObject(world, 999)).toBeUndefined();
  });

  it('lets the entity be bound to a new object afterwards', () => {
    const world = createViewerWorld();
    const eid = addViewerEntity(world);
    bindObject(world, eid, new Object3D());
    unbindObject(world, eid);
    const next = new Mesh();
    bindObject(world, eid, next);
    expect(getObject(world, eid)).toBe(next);
  });

  it("leaves a rebound object's newer link alone", () => {
    const world = createViewerWorld();
    const a = addViewerEntity(world);
    const b = addViewerEntity(world);
    const object = new Object3D();
    bindObject(world, a, object);
    unbindObject(world, a);
    bindObject(world, b, object);
    // Unbinding the stale entity again must not strip the object's current link.
    expect(unbindObject(world, a)).toBeUndefined();
    expect(getEid(object)).toBe(b);
  });
});

describe('getEid and findEntityOf', () => {
  it('answer 0 for objects the registry does not know', () => {
    const object = new Object3D();
    expect(getEid(object)).toBe(0);
    object.userData.eid = 'not a number';
    expect(getEid(object)).toBe(0);
    expect(findEntityOf(new Object3D())).toBe(0);
    expect(findEntityOf(null)).toBe(0);
  });

  it('finds the nearest ancestor that is an entity', () => {
    const world = createViewerWorld();
    const rootEid = addViewerEntity(world);
    const nodeEid = addViewerEntity(world);
    const root = new Group();
    const node = new Group();
    const helper = new Object3D(); // a child three.js added, not an entity
    const leaf = new Object3D();
    root.add(node);
    node.add(helper);
    helper.add(leaf);
    bindObject(world, rootEid, root);
    bindObject(world, nodeEid, node);
    expect(findEntityOf(leaf)).toBe(nodeEid);
    expect(findEntityOf(helper)).toBe(nodeEid);
    expect(findEntityOf(node)).toBe(nodeEid);
    expect(findEntityOf(root)).toBe(rootEid);
    unbindObject(world, nodeEid);
    expect(findEntityOf(leaf)).toBe(rootEid);
  });
});
