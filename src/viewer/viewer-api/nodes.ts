import { Box3, Box3Helper, Color, Euler, MathUtils, Quaternion, type Material, type Object3D } from 'three';
import { Visibility } from '../../../components';
import { addFrameStep } from '../../engine/frame-steps';
import { HELPER_LAYER } from '../../engine/layers';
import { setLocalTransform, type QuatLike, type Vec3Like } from '../../engine/local-transform';
import { setVisible } from '../../engine/object-flags';
import { getEid } from '../../engine/registry';
import { nodeIdOf } from '../../engine/stable-ids';
import type { HostResult } from '../../protocol/host-api';
import type { ApiContext, Impl } from '../viewer-api';

type NodeFunctions = Pick<
  Impl,
  | 'listModels'
  | 'setModelVisibility'
  | 'getObjectByName'
  | 'getNode'
  | 'getNodeTree'
  | 'setObjectTranslation'
  | 'setObjectRotation'
  | 'setObjectScale'
  | 'setObjectVisibility'
  | 'highlightObject'
>;

const quat = new Quaternion();
const euler = new Euler();

/**
 * The host API's models and nodes: transforms go through the one door (setLocalTransform), and
 * visibility through the object flags; the ECS is the truth and the sync system moves the
 * Object3Ds. A highlight is a box on the helper layer, refitted when the node moves.
 */
export function createNodeFunctions(ctx: ApiContext): { functions: NodeFunctions; dispose(): void } {
  const { viewer, world, lookups } = ctx;
  const { record, node, nodeInfo, childNodes } = lookups;

  const writeTransform = (modelId: string, nodeId: string, position: Vec3Like | null, rotation: QuatLike | null, scale: Vec3Like | null) => {
    const { rec, eid, object } = node(modelId, nodeId);
    setLocalTransform(world, eid, position, rotation, scale);
    return nodeInfo(rec, eid, object);
  };

  let highlight: { helper: Box3Helper; box: Box3; object: Object3D } | null = null;
  const clearHighlight = () => {
    if (!highlight) return;
    highlight.helper.removeFromParent();
    highlight.helper.geometry.dispose();
    (highlight.helper.material as Material).dispose();
    highlight = null;
    world.render.needsRender = true;
  };
  ctx.disposers.push(
    addFrameStep(world, 'helpers', {
      name: 'host-api-highlight',
      run() {
        if (highlight && world.transform.changed > 0) highlight.box.setFromObject(highlight.object);
      },
    }),
  );

  const listModels = (): HostResult<'listModels'> =>
    viewer.summary().map((s) => {
      const rec = record(s.modelId);
      return {
        modelId: s.modelId,
        name: s.name,
        visible: Visibility.visible[rec.eid] === 1,
        nodes: s.nodes,
        meshes: s.meshes,
        materials: s.materials,
        textures: s.textures,
        animations: s.animations.length,
      };
    });

  const functions: NodeFunctions = {
    listModels: () => listModels(),
    setModelVisibility: ({ modelId, visible }) => {
      const rec = record(modelId);
      setVisible(world, rec.eid, visible);
      world.render.needsRender = true;
      return listModels().find((m) => m.modelId === modelId)!;
    },
    getObjectByName: ({ name, modelId }) => {
      const records = modelId ? [record(modelId)] : [...world.models.values()];
      for (const rec of records) {
        for (const [, eid] of rec.nodes) {
          const object = world.objects[eid];
          if (object && object.name === name) return nodeInfo(rec, eid, object);
        }
      }
      return null;
    },
    getNode: ({ modelId, nodeId }) => {
      const { rec, eid, object } = node(modelId, nodeId);
      return nodeInfo(rec, eid, object);
    },
    getNodeTree: ({ modelId }) => {
      const rec = record(modelId);
      type Entry = HostResult<'getNodeTree'>[number];
      const roots: Entry[] = [];
      // Iterative: a deep tree must not overflow the stack.
      const stack: { object: Object3D; into: Entry[] }[] = [{ object: rec.root, into: roots }];
      const found: { id: string; object: Object3D }[] = [];
      const own = nodeIdOf(rec, getEid(rec.root));
      if (own !== null) {
        stack.length = 0;
        const entry: Entry = { nodeId: own, name: rec.root.name, type: rec.root.type, children: [] };
        roots.push(entry);
        stack.push({ object: rec.root, into: entry.children });
      }
      while (stack.length) {
        const { object, into } = stack.pop()!;
        found.length = 0;
        for (const child of childNodes(rec, object, found)) {
          const entry: Entry = { nodeId: child.id, name: child.object.name, type: child.object.type, children: [] };
          into.push(entry);
          stack.push({ object: child.object, into: entry.children });
        }
      }
      return roots;
    },
    setObjectTranslation: ({ modelId, nodeId, translation }) => writeTransform(modelId, nodeId, translation, null, null),
    setObjectRotation: ({ modelId, nodeId, rotation }) => {
      euler.set(MathUtils.degToRad(rotation[0]), MathUtils.degToRad(rotation[1]), MathUtils.degToRad(rotation[2]), 'XYZ');
      return writeTransform(modelId, nodeId, null, quat.setFromEuler(euler), null);
    },
    setObjectScale: ({ modelId, nodeId, scale }) => {
      if (scale.some((s) => s === 0)) throw new Error('scale must not have a 0 component: the node would vanish and could not be scaled back.');
      return writeTransform(modelId, nodeId, null, null, scale);
    },
    setObjectVisibility: ({ modelId, nodeId, visible }) => {
      const { rec, eid, object } = node(modelId, nodeId);
      setVisible(world, eid, visible);
      world.render.needsRender = true;
      return { ...nodeInfo(rec, eid, object), visible };
    },
    highlightObject: ({ modelId, nodeId, color }) => {
      if (nodeId === null) {
        clearHighlight();
        return { ok: true as const };
      }
      if (!modelId) throw new Error('modelId undefined.');
      // Looked up first: a refused call leaves the present highlight.
      const { object } = node(modelId, nodeId);
      clearHighlight();
      const box = new Box3().setFromObject(object);
      const helper = new Box3Helper(box, new Color(color ? (color.startsWith('#') ? color : `#${color}`) : '#ffb000'));
      helper.layers.set(HELPER_LAYER);
      helper.name = 'host-api-highlight';
      viewer.context.scene.add(helper);
      highlight = { helper, box, object };
      world.render.needsRender = true;
      return { ok: true as const };
    },
  };
  return { functions, dispose: clearHighlight };
}
