import { AnimationClip, BoxGeometry, Group, InstancedMesh, Mesh, MeshBasicMaterial, NumberKeyframeTrack, Texture } from 'three';
import { describe, expect, it } from 'vitest';
import type { ModelRecord } from '../../../src/engine/world';
import { summarize } from '../../../src/viewer/summary';

function record(): ModelRecord {
  const root = new Group();
  const material = new MeshBasicMaterial();
  const a = new Mesh(new BoxGeometry(), material);
  const b = new Mesh(new BoxGeometry(), material);
  const many = new InstancedMesh(new BoxGeometry(), material, 500);
  const empty = new Group();
  root.add(a, empty);
  empty.add(b, many);
  const clip = new AnimationClip('Spin', 2.5, [new NumberKeyframeTrack('.position[x]', [0, 2.5], [0, 1])]);
  return {
    eid: 1,
    modelId: 'm1',
    name: 'pump.glb',
    root,
    nodes: new Map([['0', 2], ['1', 3], ['2', 4]]),
    nodeIds: new Map(),
    primitives: new Map(),
    materials: new Map([['0', material]]),
    materialIds: new Map([[material, '0']]),
    textures: new Map([['0', new Texture()], ['1', new Texture()]]),
    animations: [{ id: '0', name: 'Spin', clip, action: null } as unknown as ModelRecord['animations'][number]],
    mixer: null,
    animated: new Uint32Array(0),
    entities: Uint32Array.of(1, 2, 3, 4, 5),
    syncPose: false,
  };
}

describe('summarize', () => {
  it("tells a model's contents as plain data: an instanced mesh counts once", () => {
    expect(summarize(record())).toEqual({
      modelId: 'm1',
      name: 'pump.glb',
      nodes: 3,
      meshes: 3,
      materials: 1,
      textures: 2,
      animations: [{ id: '0', name: 'Spin', duration: 2.5, tracks: 1 }],
      entities: 5,
    });
  });

  it('is plain data that survives a structured clone (the host API and tests read it)', () => {
    const summary = summarize(record());
    expect(structuredClone(summary)).toEqual(summary);
  });
});
