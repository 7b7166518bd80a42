import { Document, NodeIO } from '@gltf-transform/core';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { BoxGeometry } from 'three';

/** The tools' test model: a 2 x 3 x 1 m box standing on the origin (x -1..1, y 0..3, z -0.5..0.5). */
export const BOX = { width: 2, height: 3, depth: 1 } as const;
export const BOX_NODE_ID = 'tools-box-node';
export const BOX_NAME = 'Box';
/** Base colour (linear) of the box's single-sided material. */
export const BOX_COLOR: [number, number, number, number] = [0.55, 0.62, 0.7, 1];

/** Writes the box as a GLB (flat normals, indexed) and returns the path. */
export async function writeToolsBox(path: string): Promise<string> {
  const geometry = new BoxGeometry(BOX.width, BOX.height, BOX.depth).translate(0, BOX.height / 2, 0);
  const doc = new Document();
  const buffer = doc.createBuffer();
  const accessor = (type: 'VEC3' | 'SCALAR', array: Float32Array<ArrayBuffer> | Uint32Array<ArrayBuffer>) => doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const primitive = doc
    .createPrimitive()
    .setAttribute('POSITION', accessor('VEC3', new Float32Array(geometry.getAttribute('position').array)))
    .setAttribute('NORMAL', accessor('VEC3', new Float32Array(geometry.getAttribute('normal').array)))
    .setIndices(accessor('SCALAR', new Uint32Array(geometry.index!.array)))
    .setMaterial(doc.createMaterial('Box paint').setBaseColorFactor(BOX_COLOR).setRoughnessFactor(0.8).setMetallicFactor(0));
  const node = doc.createNode(BOX_NAME).setMesh(doc.createMesh(BOX_NAME).addPrimitive(primitive)).setExtras({ nodeId: BOX_NODE_ID });
  doc.createScene('Scene').addChild(node);
  mkdirSync(dirname(path), { recursive: true });
  // Written beside it, then renamed over it: a worker reading it meanwhile reads a whole file
  // (each worker writes the same bytes).
  const partial = `${path}.${process.pid}.part`;
  writeFileSync(partial, await new NodeIO().writeBinary(doc));
  renameSync(partial, path);
  return path;
}
