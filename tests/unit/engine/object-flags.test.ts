import { addComponent } from 'bitecs';
import { BoxGeometry, Group, Mesh, MeshBasicMaterial } from 'three';
import { describe, expect, it } from 'vitest';
import { Renderable, Shadows, Visibility } from '../../../components';
import { spawnTransformEntity } from '../../../src/engine/hierarchy';
import { flagObject, setShadows, setVisible, syncObjectFlags } from '../../../src/engine/object-flags';
import { bindObject } from '../../../src/engine/registry';
import { createViewerWorld, type ViewerWorld } from '../../../src/engine/world';

function meshEntity(world: ViewerWorld): { eid: number; mesh: Mesh } {
  const eid = spawnTransformEntity(world);
  const mesh = new Mesh(new BoxGeometry(), new MeshBasicMaterial());
  bindObject(world, eid, mesh);
  addComponent(world, eid, Visibility);
  addComponent(world, eid, Shadows);
  addComponent(world, eid, Renderable);
  Visibility.visible[eid] = 1;
  return { eid, mesh };
}

describe('object flags: Visibility and Shadows are the truth', () => {
  it('a write changes only the component; the Object3D follows at the sync, and a picture is asked for', () => {
    const world = createViewerWorld();
    const { eid, mesh } = meshEntity(world);
    world.render.needsRender = false;
    setVisible(world, eid, false);
    setShadows(world, eid, true, false);
    expect(Visibility.visible[eid]).toBe(0);
    expect(mesh.visible).toBe(true);
    expect(syncObjectFlags(world)).toBe(1);
    expect(mesh.visible).toBe(false);
    expect(mesh.castShadow).toBe(true);
    expect(mesh.receiveShadow).toBe(false);
    expect(world.render.needsRender).toBe(true);
  });

  it('an entity written twice is applied once; a second sync has nothing to do and asks for no picture', () => {
    const world = createViewerWorld();
    const { eid, mesh } = meshEntity(world);
    setVisible(world, eid, false);
    setVisible(world, eid, true);
    setShadows(world, eid, undefined, true);
    expect(world.flags.count).toBe(1);
    expect(syncObjectFlags(world)).toBe(1);
    expect(mesh.visible).toBe(true);
    expect(mesh.receiveShadow).toBe(true);
    world.render.needsRender = false;
    expect(syncObjectFlags(world)).toBe(0);
    expect(world.render.needsRender).toBe(false);
  });

  it('setting the visibility an entity already has flags nothing', () => {
    const world = createViewerWorld();
    const { eid } = meshEntity(world);
    setVisible(world, eid, true);
    expect(world.flags.count).toBe(0);
  });

  it('an undefined shadow flag keeps its value', () => {
    const world = createViewerWorld();
    const { eid, mesh } = meshEntity(world);
    setShadows(world, eid, true, true);
    syncObjectFlags(world);
    setShadows(world, eid, false, undefined);
    syncObjectFlags(world);
    expect(mesh.castShadow).toBe(false);
    expect(mesh.receiveShadow).toBe(true);
  });

  it("shadow flags touch drawables only (a light's castShadow belongs to the shadow budget)", () => {
    const world = createViewerWorld();
    const eid = spawnTransformEntity(world);
    const group = new Group();
    bindObject(world, eid, group);
    addComponent(world, eid, Shadows);
    setShadows(world, eid, true, true);
    syncObjectFlags(world);
    expect(group.castShadow).toBe(false);
    expect(group.receiveShadow).toBe(false);
  });

  it('skips entities without an object, and grows past its first capacity without losing one', () => {
    const world = createViewerWorld();
    const capacity = world.flags.dirty.length;
    const meshes: Mesh[] = [];
    for (let i = 0; i < capacity + 10; i++) {
      const { eid, mesh } = meshEntity(world);
      meshes.push(mesh);
      setVisible(world, eid, false);
    }
    const bare = spawnTransformEntity(world);
    flagObject(world, bare);
    expect(world.flags.dirty.length).toBeGreaterThan(capacity);
    expect(syncObjectFlags(world)).toBe(capacity + 11);
    expect(meshes.every((m) => !m.visible)).toBe(true);
    expect(world.flags.flagged[bare]).toBe(0);
  });
});
