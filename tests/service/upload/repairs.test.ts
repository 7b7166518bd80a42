import { Document } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import { createModelIO } from '../../../src/server/upload/io.ts';
import { addSkeletonsToScenes, generateMissingTangents } from '../../../src/server/upload/repairs.ts';
import { validateModel } from '../../../src/server/upload/validate.ts';
import { model } from './corpus.ts';

describe('generateMissingTangents', () => {
  it('gives tangents to the primitives whose material needs them (clearcoat normal map without a normal map)', async () => {
    const input = await model('ClearCoatTest.glb');
    expect((await validateModel(input, { fileName: 'ClearCoatTest.glb' })).messages.map((m) => m.code)).toContain('MESH_PRIMITIVE_NO_TANGENT_SPACE');
    const io = await createModelIO(false);
    const doc = await io.readBinary(input);
    const repaired = await generateMissingTangents(doc);
    expect(repaired).toBeGreaterThan(0);
    const after = await validateModel(await io.writeBinary(doc), { fileName: 'ClearCoatTest.glb', repairs: false });
    expect(after.messages.map((m) => m.code)).not.toContain('MESH_PRIMITIVE_NO_TANGENT_SPACE');
    expect(await generateMissingTangents(doc)).toBe(0);
  });
});

describe('addSkeletonsToScenes', () => {
  it("adds the root of a skin's joints to the scene of the skinned node, once", () => {
    const doc = new Document();
    const root = doc.createNode('root');
    const joint = doc.createNode('joint');
    root.addChild(joint);
    const skinned = doc.createNode('skinned').setSkin(doc.createSkin().addJoint(joint));
    const scene = doc.createScene().addChild(skinned);
    expect(addSkeletonsToScenes(doc)).toBe(1);
    expect(scene.listChildren()).toEqual([skinned, root]);
    expect(addSkeletonsToScenes(doc)).toBe(0);
  });
});
