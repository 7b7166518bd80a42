import { addComponent } from 'bitecs';
import { Group, MeshStandardMaterial, Object3D } from 'three';
import { describe, expect, it } from 'vitest';
import { ModelMember } from '../../../components';
import { bindObject } from '../../../src/engine/registry';
import {
  createIdMaps,
  materialById,
  materialIdOf,
  modelById,
  modelOfEntity,
  nearestNode,
  nodeEid,
  nodeIdOf,
  registerMaterial,
  registerNode,
} from '../../../src/engine/stable-ids';
import { addViewerEntity, createViewerWorld, type ModelRecord } from '../../../src/engine/world';

function record(eid: number, root: Object3D): ModelRecord {
  return {
    eid,
    modelId: 'model-a',
    name: 'a.glb',
    root,
    ...createIdMaps(),
    primitives: new Map(),
    textures: new Map(),
    animations: [],
    mixer: null,
    animated: new Uint32Array(0),
    entities: new Uint32Array(0),
    syncPose: false,
  };
}

describe('stable id lookups', () => {
  it('finds nodes both ways and keeps the first registration of an id', () => {
    const world = createViewerWorld();
    const r = record(addViewerEntity(world), new Group());
    registerNode(r, '3', 7);
    registerNode(r, '3', 9);
    expect(nodeEid(r, '3')).toBe(7);
    expect(nodeIdOf(r, 7)).toBe('3');
    expect(nodeIdOf(r, 9)).toBeNull();
    expect(nodeEid(r, 'missing')).toBe(0);
  });

  it('finds materials both ways', () => {
    const world = createViewerWorld();
    const r = record(addViewerEntity(world), new Group());
    const m = new MeshStandardMaterial();
    expect(registerMaterial(r, '0', m)).toBe(true);
    expect(registerMaterial(r, '0', new MeshStandardMaterial())).toBe(false);
    expect(materialById(r, '0')).toBe(m);
    expect(materialIdOf(r, m)).toBe('0');
    expect(materialIdOf(r, new MeshStandardMaterial())).toBeNull();
  });

  it('finds the model of an entity and the nearest registered node above an object', () => {
    const world = createViewerWorld();
    const root = new Group();
    const modelEid = addViewerEntity(world);
    const r = record(modelEid, root);
    world.models.set(modelEid, r);
    const node = new Group();
    node.name = 'Pump';
    const primitive = new Object3D();
    node.add(primitive);
    root.add(node);
    const nodeEntity = addViewerEntity(world);
    bindObject(world, nodeEntity, node);
    addComponent(world, nodeEntity, ModelMember);
    ModelMember.model[nodeEntity] = modelEid;
    registerNode(r, '5', nodeEntity);
    expect(modelOfEntity(world, nodeEntity)).toBe(r);
    expect(modelOfEntity(world, 0)).toBeNull();
    expect(modelById(world, 'model-a')).toBe(r);
    expect(modelById(world, 'other')).toBeNull();
    expect(nearestNode(r, primitive)).toEqual({ eid: nodeEntity, nodeId: '5', name: 'Pump' });
    expect(nearestNode(r, root)).toBeNull();
  });
});
