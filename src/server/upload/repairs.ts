import { Primitive } from '@gltf-transform/core';
import type { Document, Material, Node } from '@gltf-transform/core';
import type { Anisotropy, Clearcoat } from '@gltf-transform/extensions';
import * as gltfFunctions from '@gltf-transform/functions';
import { weldPrimitive } from '@gltf-transform/functions';

/**
 * Repairs of validator errors that the model service fixes for certain (the structural ones in
 * ./validate.ts REPAIRED_ERRORS are undone by gltf-transform's own rewrite of accessors and buffer
 * views; these two need work of their own).
 */

/** Materials whose textures need a tangent space even without a normal map (the validator's rule). */
function needsTangentsWithoutNormalMap(material: Material | null): boolean {
  if (!material || material.getNormalTexture()) return false;
  if (material.getExtension<Clearcoat>('KHR_materials_clearcoat')?.getClearcoatNormalTexture()) return true;
  return !!material.getExtension<Anisotropy>('KHR_materials_anisotropy')?.getAnisotropyTexture();
}

/** Exported by @gltf-transform/functions 4.5.1 at run time, missing from its type declarations. */
const unweldPrimitive = (gltfFunctions as unknown as { unweldPrimitive: (prim: Primitive) => void }).unweldPrimitive;

type TangentGenerator = (position: Float32Array, normal: Float32Array, texcoord: Float32Array) => Float32Array;
let mikktspace: Promise<TangentGenerator> | undefined;

function loadMikktspace(): Promise<TangentGenerator> {
  mikktspace ??= import('mikktspace').then((mod) => mod.generateTangents as TangentGenerator);
  return mikktspace;
}

/** MESH_PRIMITIVE_NO_TANGENT_SPACE: MikkTSpace tangents for triangle primitives that lack them. Returns how many. */
export async function generateMissingTangents(doc: Document): Promise<number> {
  const targets: Primitive[] = [];
  for (const mesh of doc.getRoot().listMeshes()) {
    for (const prim of mesh.listPrimitives()) {
      if (prim.getAttribute('TANGENT') || !needsTangentsWithoutNormalMap(prim.getMaterial())) continue;
      if (prim.getMode() !== Primitive.Mode.TRIANGLES || !prim.getAttribute('NORMAL') || !prim.getAttribute('TEXCOORD_0')) continue;
      targets.push(prim);
    }
  }
  if (targets.length === 0) return 0;
  const generateTangents = await loadMikktspace();
  for (const prim of targets) {
    unweldPrimitive(prim);
    const floats = (name: string) => {
      const array = prim.getAttribute(name)!.getArray()!;
      return array instanceof Float32Array ? array : new Float32Array(array);
    };
    const tangents = generateTangents(floats('POSITION'), floats('NORMAL'), floats('TEXCOORD_0'));
    // MikkTSpace's handedness is the opposite of glTF's UV convention (V flipped).
    for (let i = 3; i < tangents.length; i += 4) tangents[i] *= -1;
    const buffer = prim.getAttribute('POSITION')!.getBuffer();
    prim.setAttribute('TANGENT', doc.createAccessor().setType('VEC4').setArray(new Float32Array(tangents)).setBuffer(buffer));
    weldPrimitive(prim);
  }
  return targets.length;
}

/** NODE_SKIN_NO_SCENE: adds the root of a skin's joint hierarchy to the scenes of its skinned nodes. Returns how many. */
export function addSkeletonsToScenes(doc: Document): number {
  let added = 0;
  const topOf = (node: Node): Node => {
    let top = node;
    for (let parent = top.getParentNode(); parent; parent = parent.getParentNode()) top = parent;
    return top;
  };
  for (const scene of doc.getRoot().listScenes()) {
    const inScene = new Set<Node>();
    scene.traverse((node) => inScene.add(node));
    for (const node of [...inScene]) {
      const joint = node.getSkin()?.listJoints()[0];
      if (!joint || inScene.has(joint)) continue;
      const top = topOf(joint);
      scene.addChild(top);
      top.traverse((n) => inScene.add(n));
      added++;
    }
  }
  return added;
}
