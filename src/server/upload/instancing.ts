import type { Document, Mesh, Node, Scene } from '@gltf-transform/core';
import { EXTMeshGPUInstancing } from '@gltf-transform/extensions';
import { INSTANCE_NAMES_KEY, INSTANCE_NODE_IDS_KEY, instancedNodeId, NODE_ID_KEY } from '../../protocol/stable-ids.ts';
import { extrasOf } from './stable-ids.ts';

/** Repeated sibling meshes become EXT_mesh_gpu_instancing (see instanceSiblings). */

export interface InstancingResult {
  /** Nodes with EXT_mesh_gpu_instancing made here. */
  batches: number;
  /** Source nodes they replace. */
  instances: number;
}

/**
 * Turns repeated meshes into EXT_mesh_gpu_instancing: among the children of one parent (a scene or
 * a node), at least `min` leaf nodes drawing the same mesh become one node whose instances carry
 * their local translation, rotation and scale. Staying under the same parent keeps the hierarchy
 * meaningful: moving the parent in the editor still moves the instances, and animated parents
 * still carry them. A node is left alone when instancing would lose something: it has children, a
 * skin, a camera, a light or another extension, its own morph weights, an animation, is a joint, is
 * shared by several scenes, or its mesh has morph targets.
 *
 * The instanced node replaces its source nodes, whose ids survive in its extras:
 * `extras.instanceNodeIds[i]` is the `nodeId` of the node drawn by instance i (the row order of the
 * instance attributes, which three.js's InstancedMesh keeps), `extras.instanceNames[i]` its name.
 * Its own `nodeId` is `instances:{first source id}`; other extras (equal for all sources) are kept.
 */
export function instanceSiblings(doc: Document, min = 5): InstancingResult {
  const root = doc.getRoot();
  const animated = new Set<Node>();
  for (const animation of root.listAnimations()) {
    for (const channel of animation.listChannels()) {
      const target = channel.getTargetNode();
      if (target) animated.add(target);
    }
  }
  const joints = new Set<Node>();
  for (const skin of root.listSkins()) {
    for (const joint of skin.listJoints()) joints.add(joint);
    const skeleton = skin.getSkeleton();
    if (skeleton) joints.add(skeleton);
  }
  const sceneCount = (node: Node) => node.listParents().filter((p) => p.propertyType === 'Scene').length;

  const eligible = (node: Node): boolean => {
    const mesh = node.getMesh();
    if (!mesh) return false;
    if (node.listChildren().length > 0 || node.getSkin() || node.getCamera() || node.listExtensions().length > 0) return false;
    if (node.getWeights().length > 0 || animated.has(node) || joints.has(node) || sceneCount(node) > 1) return false;
    return !mesh.listPrimitives().some((prim) => prim.listTargets().length > 0);
  };

  const parents: (Scene | Node)[] = [...root.listScenes(), ...root.listNodes()];
  let batches = 0;
  let instances = 0;
  let extension: EXTMeshGPUInstancing | undefined;

  for (const parent of parents) {
    const groups = new Map<string, { mesh: Mesh; nodes: Node[] }>();
    const meshKeys = new Map<Mesh, number>();
    for (const child of parent.listChildren()) {
      if (!eligible(child)) continue;
      const mesh = child.getMesh()!;
      if (!meshKeys.has(mesh)) meshKeys.set(mesh, meshKeys.size);
      const { nodeId: _nodeId, ...rest } = extrasOf(child);
      const key = `${meshKeys.get(mesh)}|${JSON.stringify(rest)}`;
      const group = groups.get(key) ?? { mesh, nodes: [] };
      group.nodes.push(child);
      groups.set(key, group);
    }
    for (const { mesh, nodes } of groups.values()) {
      if (nodes.length < min) continue;
      // KHR_materials_volume thickness cannot follow a per-instance scale.
      const scaled = nodes.some((n) => n.getScale().some((s) => Math.abs(s - 1) > 1e-7));
      if (scaled && mesh.listPrimitives().some((p) => p.getMaterial()?.getExtension('KHR_materials_volume'))) continue;

      extension ??= doc.createExtension(EXTMeshGPUInstancing);
      const buffer = mesh.listPrimitives()[0]?.getAttribute('POSITION')?.getBuffer() ?? root.listBuffers()[0] ?? doc.createBuffer();
      const count = nodes.length;
      const t = new Float32Array(count * 3);
      const r = new Float32Array(count * 4);
      const s = new Float32Array(count * 3);
      let needT = false;
      let needR = false;
      let needS = false;
      nodes.forEach((node, i) => {
        const [tx, ty, tz] = node.getTranslation();
        const [rx, ry, rz, rw] = node.getRotation();
        const [sx, sy, sz] = node.getScale();
        t.set([tx, ty, tz], i * 3);
        r.set([rx, ry, rz, rw], i * 4);
        s.set([sx, sy, sz], i * 3);
        if (tx !== 0 || ty !== 0 || tz !== 0) needT = true;
        if (rx !== 0 || ry !== 0 || rz !== 0 || rw !== 1) needR = true;
        if (sx !== 1 || sy !== 1 || sz !== 1) needS = true;
      });
      if (!needR && !needS) needT = true; // at least one attribute
      const batch = extension.createInstancedMesh();
      if (needT) batch.setAttribute('TRANSLATION', doc.createAccessor().setType('VEC3').setArray(t).setBuffer(buffer));
      if (needR) batch.setAttribute('ROTATION', doc.createAccessor().setType('VEC4').setArray(r).setBuffer(buffer));
      if (needS) batch.setAttribute('SCALE', doc.createAccessor().setType('VEC3').setArray(s).setBuffer(buffer));

      const ids = nodes.map((n) => extrasOf(n).nodeId as string);
      const names = nodes.map((n) => n.getName());
      const { nodeId: _nodeId, ...shared } = extrasOf(nodes[0]);
      const batchNode = doc
        .createNode(names[0] || mesh.getName())
        .setMesh(mesh)
        .setExtension('EXT_mesh_gpu_instancing', batch)
        .setExtras({
          ...shared,
          [NODE_ID_KEY]: instancedNodeId(ids[0]),
          [INSTANCE_NODE_IDS_KEY]: ids,
          ...(names.some((n) => n !== '') ? { [INSTANCE_NAMES_KEY]: names } : {}),
        });
      parent.addChild(batchNode);
      for (const node of nodes) node.dispose();
      batches++;
      instances += count;
    }
  }
  return { batches, instances };
}
