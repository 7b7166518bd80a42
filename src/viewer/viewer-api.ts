import {
  Box3,
  Box3Helper,
  Color,
  Euler,
  ImageLoader,
  MathUtils,
  Quaternion,
  Sphere,
  SRGBColorSpace,
  TextureLoader,
  Vector3,
  type Material,
  type MeshStandardMaterial,
  type Object3D,
  type OrthographicCamera,
  type PerspectiveCamera,
  type Texture,
} from 'three';
import { Transform, Visibility } from '../../components';
import { addFrameStep } from '../engine/frame-steps';
import { markTransformDirty } from '../engine/hierarchy';
import { HELPER_LAYER } from '../engine/layers';
import { enqueueMessage, onMessage } from '../engine/messages';
import { getEid } from '../engine/registry';
import { modelById, nodeEid, nodeIdOf } from '../engine/stable-ids';
import { setVisible } from '../engine/object-flags';
import type { ModelRecord } from '../engine/world';
import {
  HOST_FUNCTION_NAMES,
  HOST_FUNCTIONS,
  MAX_ADDED_TEXTURES,
  MAX_MEASUREMENTS,
  MAX_SECTION_PLANES,
  measurementProblem,
  type HostEventName,
  type HostFunctionName,
  type HostParsedArgs,
  type HostResult,
  type TextureInfo,
} from '../protocol/host-api';
import { TEXTURE_MAP_PROPERTIES } from '../protocol/mutation';
import { applyMutations } from '../scene/apply-mutations';
import { findAnimation } from './animation';
import { applySceneSettings, readSceneSettings } from './scene-settings';
import { createLabelLayer, type Label } from './tools/labels';
import type { Viewer } from './viewer';
import { createMemoryAnnotationStore, type AnnotationStore } from './annotations';

/**
 * The host API's functions on a running viewer (src/protocol/host-api.ts lists them with their
 * schemas). Each request is queued as a scene message and applied by the message system at its slot
 * of the frame, never between two systems; the ECS is the truth (Transform, Visibility). Outward
 * events come from the viewer's one emitter and from one 'overlays' frame step (camera start/stop,
 * hotspot screen positions, annotation pins).
 */

type Impl = { [F in HostFunctionName]: (args: HostParsedArgs<F>) => HostResult<F> | Promise<HostResult<F>> };

/** Runs one checked request (the transport, src/api/host-api.ts, calls it once the viewer is ready). */
export type Execute = (func: HostFunctionName, args: unknown) => Promise<unknown>;

/**
 * What the functions need of the host-page API's transport (src/api/host-api.ts's HostApi is one):
 * declared here, so the viewer does not import the layer above it.
 */
export interface HostEvents {
  /** Whether any page listens (so event producers can skip their work). */
  readonly listening: boolean;
  /** An api.event to every page that called api.init and may hear events. */
  emit(event: HostEventName, data: unknown): void;
}
type Vec3T = [number, number, number];

export interface ViewerApiOptions {
  viewer: Viewer;
  api: HostEvents;
  /** The viewer's container (annotation pins are drawn over its canvas). */
  container: HTMLElement;
  canvas: HTMLCanvasElement;
  /** Where annotations are kept (default: in memory, for this page only). */
  annotations?: AnnotationStore;
  /**
   * The annotations are the scene's comments (src/api/comments.ts): the viewer's comment pins
   * draw them (no label pins here), a pin's click is 'annotation.click', and gotoAnnotation opens
   * the comment's whole view (camera, section planes, measurements) through `open`.
   */
  comments?: { open(id: string, transition: boolean): Promise<boolean> };
  /** Keeps the token a host page hands over (setAuthToken; src/api/host-auth.ts). Absent: the function says this viewer cannot. */
  auth?: { set(token: string | null): Promise<HostResult<'setAuthToken'>> };
}

export interface ViewerApi {
  execute: Execute;
  /** Runs a function directly (tests); the host's requests go through `execute`. */
  readonly functions: Impl;
  dispose(): void;
}

/** Frames without camera movement after which 'camerastop' is sent. */
export const CAMERA_STOP_FRAMES = 2;
/** Default margin of renderOffscreenFrame's fit. */
export const FIT_PADDING_DEFAULT = 1.1;
/** Hotspots a host page may register at once (each is projected on every camera move). */
export const MAX_HOTSPOTS = 1000;

const MESSAGE_TYPE = 'host-api';

/** Functions that only read and draw nothing: answered without waiting for the frame when nothing of the host's is queued. */
export const IMMEDIATE: ReadonlySet<HostFunctionName> = new Set(
  HOST_FUNCTION_NAMES.filter((name) => HOST_FUNCTIONS[name].access === 'read' && name !== 'screenshot' && name !== 'renderOffscreenFrame'),
);

const v1 = new Vector3();
const v2 = new Vector3();
const quat = new Quaternion();
const euler = new Euler();
const Z = new Vector3(0, 0, 1);

const tuple = (v: Vector3): Vec3T => [v.x, v.y, v.z];

export function createViewerApi(options: ViewerApiOptions): ViewerApi {
  const { viewer, api } = options;
  const { world } = viewer;
  const store = options.annotations ?? createMemoryAnnotationStore();
  const disposers: (() => void)[] = [];

  // ---- lookups ------------------------------------------------------------------------------
  const record = (modelId: string): ModelRecord => {
    const found = modelById(world, modelId);
    if (!found) throw new Error(`There is no loaded model '${modelId}'.`);
    return found;
  };
  const node = (modelId: string, nodeId: string): { rec: ModelRecord; eid: number; object: Object3D } => {
    const rec = record(modelId);
    const eid = nodeEid(rec, nodeId);
    const object = eid === 0 ? undefined : world.objects[eid];
    if (eid === 0 || !object) throw new Error(`Model '${modelId}' has no node '${nodeId}'.`);
    return { rec, eid, object };
  };
  /** The nearest registered node above `object` (or the node itself). */
  const parentNodeId = (rec: ModelRecord, object: Object3D): string | null => {
    for (let o = object.parent; o; o = o.parent) {
      const id = nodeIdOf(rec, getEid(o));
      if (id !== null) return id;
      if (o === rec.root) break;
    }
    return null;
  };
  const childNodes = (rec: ModelRecord, object: Object3D, out: { id: string; object: Object3D }[]) => {
    const stack = [...object.children].reverse();
    while (stack.length) {
      const o = stack.pop()!;
      const id = nodeIdOf(rec, getEid(o));
      if (id !== null) out.push({ id, object: o });
      else for (let i = o.children.length - 1; i >= 0; i--) stack.push(o.children[i]);
    }
    return out;
  };
  const nodeInfo = (rec: ModelRecord, eid: number, object: Object3D): HostResult<'getNode'> => {
    const p = eid * 3;
    quat.fromArray(Transform.rotation, eid * 4);
    euler.setFromQuaternion(quat, 'XYZ');
    return {
      modelId: rec.modelId,
      nodeId: nodeIdOf(rec, eid) ?? '',
      name: object.name,
      type: object.type,
      visible: Visibility.visible[eid] === 1,
      translation: [Transform.position[p], Transform.position[p + 1], Transform.position[p + 2]],
      rotation: [MathUtils.radToDeg(euler.x), MathUtils.radToDeg(euler.y), MathUtils.radToDeg(euler.z)],
      scale: [Transform.scale[p], Transform.scale[p + 1], Transform.scale[p + 2]],
      parentId: parentNodeId(rec, object),
      children: childNodes(rec, object, []).map((c) => c.id),
    };
  };
  const material = (modelId: string, materialId: string): { rec: ModelRecord; mat: Material } => {
    const rec = record(modelId);
    const mat = rec.materials.get(materialId);
    if (!mat) throw new Error(`Model '${modelId}' has no material '${materialId}'.`);
    return { rec, mat };
  };
  const materialInfo = (rec: ModelRecord, materialId: string, mat: Material): HostResult<'getMaterial'> => {
    const m = mat as MeshStandardMaterial;
    const maps: Record<string, string | null> = {};
    const ids = new Map<Texture, string>();
    for (const [id, texture] of rec.textures) ids.set(texture, id);
    for (const key of TEXTURE_MAP_PROPERTIES) {
      const texture = (m as unknown as Record<string, Texture | null | undefined>)[key];
      if (texture) maps[key] = ids.get(texture) ?? null;
    }
    return {
      modelId: rec.modelId,
      materialId,
      name: mat.name,
      type: mat.type,
      color: m.color instanceof Color ? `#${m.color.getHexString()}` : null,
      opacity: mat.opacity,
      transparent: mat.transparent,
      metalness: typeof m.metalness === 'number' ? m.metalness : null,
      roughness: typeof m.roughness === 'number' ? m.roughness : null,
      emissive: m.emissive instanceof Color ? `#${m.emissive.getHexString()}` : null,
      emissiveIntensity: typeof m.emissiveIntensity === 'number' ? m.emissiveIntensity : null,
      maps,
    };
  };

  // ---- camera -------------------------------------------------------------------------------
  const controls = viewer.controls;
  const perspective = () => viewer.navigation.perspectiveCamera;
  const cameraState = (): HostResult<'getCamera'> => {
    controls.getPosition(v1, true);
    controls.getTarget(v2, true);
    const cam = perspective();
    const nav = viewer.navigation.state();
    return { position: tuple(v1), target: tuple(v2), fov: cam.fov, near: cam.near, far: cam.far, projection: nav.projection, mode: nav.mode, controls: nav.cameraConfig };
  };
  /** Starts the move (throwing at once when the pose is refused); resolves when the camera arrives. */
  const lookAt = (position: Vec3T | undefined, target: Vec3T | undefined, transition: boolean): Promise<void> => {
    controls.getPosition(v1, true);
    controls.getTarget(v2, true);
    const p = position ?? tuple(v1);
    const t = target ?? tuple(v2);
    if (p[0] === t[0] && p[1] === t[1] && p[2] === t[2]) throw new Error('position and target must differ: the camera needs a direction to look in.');
    world.render.needsRender = true;
    return controls.setLookAt(p[0], p[1], p[2], t[0], t[1], t[2], transition);
  };
  const setFov = (fov: number) => {
    const cam = perspective();
    cam.fov = fov;
    cam.updateProjectionMatrix();
    world.render.needsRender = true;
  };

  // ---- objects: transforms are written in the ECS; the sync system moves the Object3Ds ------
  const writeTransform = (modelId: string, nodeId: string, write: (eid: number, object: Object3D) => void) => {
    const { rec, eid, object } = node(modelId, nodeId);
    write(eid, object);
    markTransformDirty(world, eid);
    // Keep the Object3D's own fields in step (the animation mixer reads them), as saved edits do.
    if (object.pivot) object.pivot = null;
    const p = eid * 3;
    object.position.fromArray(Transform.position, p);
    object.quaternion.fromArray(Transform.rotation, eid * 4);
    object.scale.fromArray(Transform.scale, p);
    world.render.needsRender = true;
    return nodeInfo(rec, eid, object);
  };

  // ---- highlight: a box on the helper layer, refitted when the node moves ---------------------
  let highlight: { helper: Box3Helper; box: Box3; object: Object3D } | null = null;
  const clearHighlight = () => {
    if (!highlight) return;
    highlight.helper.removeFromParent();
    highlight.helper.geometry.dispose();
    (highlight.helper.material as Material).dispose();
    highlight = null;
    world.render.needsRender = true;
  };
  disposers.push(
    addFrameStep(world, 'helpers', {
      name: 'host-api-highlight',
      run() {
        if (highlight && world.transform.changed > 0) highlight.box.setFromObject(highlight.object);
      },
    }),
  );

  // ---- textures -----------------------------------------------------------------------------
  let textureCount = 0;
  let textureLoads = 0;
  const textureLoader = new TextureLoader().setCrossOrigin('anonymous');
  const imageLoader = new ImageLoader().setCrossOrigin('anonymous');
  /** addTexture's textures (also registered in every model's textures under the same id), with their images' URLs. */
  const addedTextures = new Map<string, { texture: Texture; url: string }>();
  const loadImage = (url: string) =>
    new Promise<HTMLImageElement>((resolve, reject) =>
      imageLoader.load(url, resolve, undefined, () => reject(new Error(`The image at ${url} could not be loaded (it must exist and allow cross-origin use: CORS).`))),
    );
  /** The material maps sampling `texture` (or a twin of it in another colour space: the same image source). */
  const usersOf = (texture: Texture, records: Iterable<ModelRecord>) => {
    const users: TextureInfo['usedBy'] = [];
    const textures: Texture[] = [];
    for (const rec of records) {
      for (const [materialId, mat] of rec.materials) {
        for (const key of TEXTURE_MAP_PROPERTIES) {
          const t = (mat as unknown as Record<string, Texture | null | undefined>)[key];
          if (t && t.source === texture.source) {
            users.push({ modelId: rec.modelId, materialId, map: key });
            if (!textures.includes(t)) textures.push(t);
          }
        }
      }
    }
    return { users, textures };
  };
  const textureInfo = (textureId: string, texture: Texture, modelId: string | null): TextureInfo => {
    const added = addedTextures.get(textureId);
    const image = texture.image as { width?: unknown; height?: unknown } | null | undefined;
    const size = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
    return {
      textureId,
      modelId: added ? null : modelId,
      name: texture.name,
      source: added ? 'added' : texture.userData.uploadedTextureId !== undefined ? 'uploaded' : 'model',
      url: added ? added.url : null,
      width: size(image?.width),
      height: size(image?.height),
      usedBy: usersOf(texture, modelId === null || added ? world.models.values() : [record(modelId)]).users,
    };
  };

  // ---- hotspots, camera start/stop, annotation pins: one overlays step ----------------------
  const hotspots = new Map<string, { position: Vector3; out: { id: string; x: number; y: number; visible: boolean } }>();
  let hotspotList: { id: string; x: number; y: number; visible: boolean }[] = [];
  let hotspotsDirty = false;
  let moving = false;
  let still = 0;
  const labels = createLabelLayer(options.container, options.canvas);
  const pins = new Map<string, Label>();
  let pinsDirty = false;
  const size = { width: 0, height: 0 };
  const project = (position: Vector3, out: { x: number; y: number; visible: boolean }) => {
    const camera = world.render.camera;
    size.width = options.canvas.clientWidth;
    size.height = options.canvas.clientHeight;
    if (!camera) {
      out.x = 0;
      out.y = 0;
      out.visible = false;
      return out;
    }
    camera.updateMatrixWorld();
    v1.copy(position).project(camera);
    out.x = ((v1.x + 1) / 2) * size.width;
    out.y = ((1 - v1.y) / 2) * size.height;
    out.visible = v1.z > -1 && v1.z < 1 && out.x >= 0 && out.y >= 0 && out.x <= size.width && out.y <= size.height;
    return out;
  };
  const sendHotspots = () => {
    if (hotspotList.length === 0) return;
    for (const h of hotspots.values()) project(h.position, h.out);
    api.emit('hotspots', { points: hotspotList });
  };
  disposers.push(
    addFrameStep(world, 'overlays', {
      name: 'host-api',
      run() {
        const camera = world.render.camera;
        if (world.camera.moved) {
          still = 0;
          if (!moving) {
            moving = true;
            if (api.listening) api.emit('camerastart', cameraState());
          }
          if (api.listening) sendHotspots();
          pinsDirty = true;
        } else if (moving && ++still >= CAMERA_STOP_FRAMES) {
          moving = false;
          if (api.listening) api.emit('camerastop', cameraState());
        }
        if (hotspotsDirty) {
          hotspotsDirty = false;
          if (api.listening) sendHotspots();
        }
        if (pinsDirty && camera && pins.size > 0) {
          pinsDirty = false;
          labels.update(camera);
        }
      },
    }),
  );

  if (options.comments) {
    disposers.push(viewer.events.on('comment-pin', ({ id }) => api.emit('annotation.click', { annotationId: id })));
  }
  const showPin = (annotation: HostResult<'createAnnotation'>) => {
    if (options.comments) return;
    let label = pins.get(annotation.id);
    if (!label) {
      label = labels.add('annotation-pin', annotation.title, () => api.emit('annotation.click', { annotationId: annotation.id }));
      label.element.dataset.annotationId = annotation.id;
      pins.set(annotation.id, label);
    }
    label.setText(annotation.title || '•');
    label.element.title = annotation.text;
    label.point.set(annotation.position[0], annotation.position[1], annotation.position[2]);
    pinsDirty = true;
  };
  if (!options.comments) void store.list().then(
    (list) => list.forEach(showPin),
    (error) => console.error('The annotations could not be read:', error),
  );

  const animationRow = (modelId: string, animation: string) => {
    const rec = record(modelId);
    const entry = findAnimation(rec, animation);
    const row = viewer.animations.list().find((r) => r.modelId === modelId && r.id === entry.id)!;
    return { modelId: row.modelId, id: row.id, name: row.name, duration: row.duration, status: row.status, time: row.time, loop: row.loop };
  };

  const toDataUrl = (blob: Blob): Promise<string> =>
    new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result as string);
      reader.onerror = () => reject(reader.error ?? new Error('The picture could not be read.'));
      reader.readAsDataURL(blob);
    });
  const picture = async (blob: Promise<Blob>, width: number, height: number) => {
    const b = await blob;
    return { width, height, mimeType: b.type, dataUrl: await toDataUrl(b) };
  };
  const pictureSize = (width: number | undefined, height: number | undefined) => {
    const w = options.canvas.clientWidth || 1;
    const h = options.canvas.clientHeight || 1;
    if (width && height) return { width, height };
    if (width) return { width, height: Math.max(1, Math.round((width * h) / w)) };
    if (height) return { width: Math.max(1, Math.round((height * w) / h)), height };
    const ratio = viewer.context.renderer.getPixelRatio();
    return { width: Math.round(w * ratio), height: Math.round(h * ratio) };
  };

  const listModels = (): HostResult<'listModels'> =>
    viewer.summary().map((s) => {
      const rec = record(s.modelId);
      return { modelId: s.modelId, name: s.name, visible: Visibility.visible[rec.eid] === 1, nodes: s.nodes, meshes: s.meshes, materials: s.materials, textures: s.textures, animations: s.animations.length };
    });

  const settings = (patch: Record<string, unknown>) => applySceneSettings(viewer, patch).then(() => readSceneSettings(viewer));

  const measurementInfo = (m: { id: number; kind: 'length' | 'area' | 'angle'; value: number; label: string }): HostResult<'createMeasurement'> => {
    const raw = world.measurementPoints.get(m.id);
    const points: Vec3T[] = [];
    if (raw) for (let i = 0; i + 2 < raw.length; i += 3) points.push([raw[i], raw[i + 1], raw[i + 2]]);
    return { id: m.id, kind: m.kind, value: m.value, label: m.label, points };
  };
  const measurementById = (id: number) => {
    const found = viewer.tools.measurements.list().find((m) => m.id === id);
    if (!found) throw new Error(`There is no measurement ${id}.`);
    return measurementInfo(found);
  };
  /** A plane through `point` with the unit normal `n`: the kept side is where n . p + constant >= 0. */
  const planeInfo = (id: number, n: Vector3, point: readonly number[]): HostResult<'createSectionPlane'> => ({
    id,
    normal: [n.x, n.y, n.z],
    constant: -(n.x * point[0] + n.y * point[1] + n.z * point[2]),
  });

  const functions: Impl = {
    listModels: () => listModels(),
    setModelVisibility: ({ modelId, visible }) => {
      const rec = record(modelId);
      setVisible(world, rec.eid, visible);
      world.render.needsRender = true;
      return listModels().find((m) => m.modelId === modelId)!;
    },
    getCamera: () => cameraState(),
    setCamera: async ({ position, target, fov, transition }) => {
      // Checked before anything changes: a refused pose leaves the field of view too.
      if (position || target) {
        const moving = lookAt(position, target, transition ?? true);
        if (fov !== undefined) setFov(fov);
        await moving;
      } else if (fov !== undefined) setFov(fov);
      return cameraState();
    },
    fitCamera: async ({ transition }) => {
      await viewer.frame(transition ?? true);
      return cameraState();
    },
    setCameraConfig: ({ fov, near, far, controls: mapping }) => {
      const cam = perspective();
      const n = near ?? cam.near;
      const f = far ?? cam.far;
      if (n >= f) throw new Error(`near (${n}) must be less than far (${f}).`);
      if (fov !== undefined) cam.fov = fov;
      cam.near = n;
      cam.far = f;
      cam.updateProjectionMatrix();
      if (mapping) viewer.navigation.setCameraConfig(mapping);
      world.render.needsRender = true;
      return cameraState();
    },
    setNavigationMode: ({ mode }) => {
      viewer.navigation.setMode(mode);
      return cameraState();
    },
    setProjection: ({ projection }) => {
      viewer.navigation.setProjection(projection);
      return cameraState();
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
    setObjectTranslation: ({ modelId, nodeId, translation }) => writeTransform(modelId, nodeId, (eid) => Transform.position.set(translation, eid * 3)),
    setObjectRotation: ({ modelId, nodeId, rotation }) =>
      writeTransform(modelId, nodeId, (eid) => {
        euler.set(MathUtils.degToRad(rotation[0]), MathUtils.degToRad(rotation[1]), MathUtils.degToRad(rotation[2]), 'XYZ');
        quat.setFromEuler(euler);
        Transform.rotation.set([quat.x, quat.y, quat.z, quat.w], eid * 4);
      }),
    setObjectScale: ({ modelId, nodeId, scale }) => {
      if (scale.some((s) => s === 0)) throw new Error('scale must not have a 0 component: the node would vanish and could not be scaled back.');
      return writeTransform(modelId, nodeId, (eid) => Transform.scale.set(scale, eid * 3));
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
    listMaterials: ({ modelId }) => {
      const records = modelId ? [record(modelId)] : [...world.models.values()];
      const out: HostResult<'listMaterials'> = [];
      for (const rec of records) for (const [materialId, mat] of rec.materials) out.push({ modelId: rec.modelId, materialId, name: mat.name, type: mat.type });
      return out;
    },
    getMaterial: ({ modelId, materialId }) => {
      const { rec, mat } = material(modelId, materialId);
      return materialInfo(rec, materialId, mat);
    },
    setMaterial: ({ modelId, materialId, properties }) => {
      const { rec } = material(modelId, materialId);
      const result = applyMutations(world, rec, [{ type: 'updateMaterial', key: `${materialId}/api`, uuid: 'host-api', createdAt: Date.now(), materialId, properties }]);
      if (result.problems.length > 0) throw new Error(result.problems.join(' '));
      world.render.needsRender = true;
      return materialInfo(rec, materialId, rec.materials.get(materialId)!);
    },
    addTexture: ({ url }) => {
      if (addedTextures.size + textureLoads >= MAX_ADDED_TEXTURES) {
        throw new Error(`At most ${MAX_ADDED_TEXTURES} textures may be added: remove one with removeTexture first.`);
      }
      textureLoads++;
      return new Promise((resolve, reject) => {
        textureLoader.load(
          url,
          (texture) => {
            textureLoads--;
            texture.colorSpace = SRGBColorSpace;
            texture.flipY = false; // glTF's texture coordinates
            const textureId = `api-texture-${++textureCount}`;
            texture.name = textureId;
            addedTextures.set(textureId, { texture, url });
            // Every loaded model may use it in setMaterial's maps.
            for (const rec of world.models.values()) rec.textures.set(textureId, texture);
            resolve({ textureId });
          },
          undefined,
          () => {
            textureLoads--;
            reject(new Error(`The image at ${url} could not be loaded (it must exist and allow cross-origin use: CORS).`));
          },
        );
      });
    },
    listTextures: ({ modelId }) => {
      const records = modelId ? [record(modelId)] : [...world.models.values()];
      const out: TextureInfo[] = [];
      for (const [textureId, { texture }] of addedTextures) out.push(textureInfo(textureId, texture, null));
      for (const rec of records) {
        for (const [textureId, texture] of rec.textures) if (!addedTextures.has(textureId)) out.push(textureInfo(textureId, texture, rec.modelId));
      }
      return out;
    },
    updateTexture: async ({ textureId, url, modelId }) => {
      const find = () => {
        if (modelId !== undefined) {
          const texture = record(modelId).textures.get(textureId);
          if (!texture) throw new Error(`Model '${modelId}' has no texture '${textureId}'.`);
          return texture;
        }
        const added = addedTextures.get(textureId);
        if (!added) throw new Error(`There is no texture '${textureId}' made by addTexture (a model's own texture needs its modelId).`);
        return added.texture;
      };
      find();
      const image = await loadImage(url);
      // Looked up again: the texture (or its model) may have gone while the image loaded.
      const texture = find();
      // Every texture object drawing this image (a colour-space twin shares it) gets the new one;
      // each is freed on the GPU first, so an image of another size gets storage of its size.
      const { textures } = usersOf(texture, world.models.values());
      if (!textures.includes(texture)) textures.push(texture);
      for (const t of textures) t.dispose();
      texture.image = image;
      for (const t of textures) t.needsUpdate = true;
      const added = addedTextures.get(textureId);
      if (added && added.texture === texture) added.url = url;
      world.render.needsRender = true;
      return textureInfo(textureId, texture, modelId ?? null);
    },
    removeTexture: ({ textureId }) => {
      const added = addedTextures.get(textureId);
      if (!added) {
        const own = [...world.models.values()].some((rec) => rec.textures.has(textureId));
        throw new Error(own ? `Texture '${textureId}' is a model's own: only textures made by addTexture can be removed.` : `There is no texture '${textureId}'.`);
      }
      const { users } = usersOf(added.texture, world.models.values());
      if (users.length > 0) {
        const u = users[0];
        throw new Error(
          `Texture '${textureId}' is used by ${u.map} of material '${u.materialId}' of model '${u.modelId}'${users.length > 1 ? ` (and ${users.length - 1} more maps)` : ''}: set those maps to another texture or null first.`,
        );
      }
      addedTextures.delete(textureId);
      for (const rec of world.models.values()) if (rec.textures.get(textureId) === added.texture) rec.textures.delete(textureId);
      added.texture.dispose();
      return { ok: true as const };
    },
    getPostProcessing: () => viewer.getRenderConfig(),
    setPostProcessing: ({ config }) => {
      viewer.setRenderConfig(config);
      world.render.needsRender = true;
      return viewer.getRenderConfig();
    },
    getQuality: () => ({ tier: viewer.quality.settings.tier, forced: viewer.quality.forced, postprocessing: viewer.quality.settings.postProcessing }),
    setQuality: async ({ tier }) => {
      const s = await viewer.setQuality(tier);
      return { tier: s.tier, forced: tier !== 'auto', postprocessing: s.postProcessing };
    },
    getSceneSettings: () => readSceneSettings(viewer),
    setSceneSettings: ({ settings: patch }) => settings(patch),
    setSun: (patch) => settings(patch),
    setFog: (patch) => settings(patch),
    setShadowPlane: (patch) => settings(patch),
    setWater: (patch) => settings(patch),
    setBackground: (patch) => settings(patch),
    setEnvironment: (patch) => settings(patch),
    listAnimations: () => viewer.animations.list().map((r) => ({ modelId: r.modelId, id: r.id, name: r.name, duration: r.duration, status: r.status, time: r.time, loop: r.loop })),
    playAnimation: ({ modelId, animation, loop, time }) => {
      viewer.animations.play(modelId, animation, { loop, time });
      return animationRow(modelId, animation);
    },
    pauseAnimation: ({ modelId, animation }) => {
      viewer.animations.pause(modelId, animation);
      return animationRow(modelId, animation);
    },
    resumeAnimation: ({ modelId, animation }) => {
      viewer.animations.resume(modelId, animation);
      return animationRow(modelId, animation);
    },
    stopAnimation: ({ modelId, animation }) => {
      viewer.animations.stop(modelId, animation);
      return animationRow(modelId, animation);
    },
    seekAnimation: ({ modelId, animation, time }) => {
      const rec = record(modelId);
      const entry = findAnimation(rec, animation);
      if (!entry.action) {
        // Never played: start it there and hold it.
        viewer.animations.play(modelId, animation, { time });
        viewer.animations.pause(modelId, animation);
      } else {
        entry.action.time = Math.max(0, Math.min(time, entry.clip.duration));
        rec.mixer?.update(0);
        rec.syncPose = true;
      }
      world.render.needsRender = true;
      return animationRow(modelId, animation);
    },
    setAnimationSpeed: ({ speed }) => ({ speed: viewer.animations.setSpeed(speed) }),
    activateTool: ({ tool }) => {
      if (tool === null) viewer.tools.deactivate();
      else viewer.tools.activate(tool);
      return { tool: viewer.tools.active };
    },
    listMeasurements: () => viewer.tools.measurements.list().map(measurementInfo),
    createMeasurement: ({ kind, points }) => {
      const measurements = viewer.tools.measurements;
      if (measurements.list().length >= MAX_MEASUREMENTS) throw new Error(`There are ${MAX_MEASUREMENTS} measurements, the most there may be: remove one first.`);
      const id = measurements.restore(kind, points.map((p) => new Vector3(p[0], p[1], p[2])));
      world.render.needsRender = true;
      return measurementById(id);
    },
    updateMeasurement: ({ id, points }) => {
      const measurements = viewer.tools.measurements;
      const current = measurements.list().find((m) => m.id === id);
      if (!current) throw new Error(`There is no measurement ${id}.`);
      const problem = measurementProblem(current.kind, points);
      if (problem) throw new Error(`${problem.index === null ? 'points' : `points[${problem.index}]`}: ${problem.message}`);
      measurements.setPoints(id, points.map((p) => new Vector3(p[0], p[1], p[2])));
      world.render.needsRender = true;
      return measurementById(id);
    },
    removeMeasurement: ({ id }) => {
      viewer.tools.measurements.remove(id);
      world.render.needsRender = true;
      return { ok: true as const };
    },
    listSectionPlanes: () => viewer.tools.sections.list().map((s) => ({ id: s.id, normal: [s.normal.x, s.normal.y, s.normal.z] as Vec3T, constant: s.constant })),
    createSectionPlane: ({ point, normal }) => {
      const sections = viewer.tools.sections;
      if (sections.list().length >= MAX_SECTION_PLANES) throw new Error(`There are ${MAX_SECTION_PLANES} section planes, the most there may be: remove one first.`);
      const n = new Vector3(normal[0], normal[1], normal[2]).normalize();
      // Placed as a finished plane: neither selected nor being placed, so the visitor's own tool
      // and selection stay as they were.
      const id = sections.place(new Vector3(point[0], point[1], point[2]), new Quaternion().setFromUnitVectors(Z, n));
      world.render.needsRender = true;
      return planeInfo(id, n, point);
    },
    moveSectionPlane: ({ id, point, normal }) => {
      const sections = viewer.tools.sections;
      const position = new Vector3();
      const rotation = new Quaternion();
      if (!sections.pose(id, position, rotation)) throw new Error(`There is no section plane ${id}.`);
      if (point) position.set(point[0], point[1], point[2]);
      if (normal) rotation.setFromUnitVectors(Z, new Vector3(normal[0], normal[1], normal[2]).normalize());
      sections.setPose(id, position, rotation);
      world.render.needsRender = true;
      // The plane itself follows its pose in the next frame (the section plane system): answered from the pose.
      return planeInfo(id, Z.clone().applyQuaternion(rotation), tuple(position));
    },
    removeSectionPlane: ({ id }) => {
      viewer.tools.sections.remove(id);
      world.render.needsRender = true;
      return { ok: true as const };
    },
    pickFromScreen: ({ x, y }) => {
      const rect = options.canvas.getBoundingClientRect();
      const hit = viewer.picker.pickAtClient(rect.left + x, rect.top + y);
      if (!hit) return null;
      return {
        position: tuple(hit.point),
        normal: tuple(hit.normal),
        distance: hit.distance,
        modelId: hit.modelId,
        nodeId: hit.nodeId,
        nodeName: hit.nodeName,
        materialId: hit.materialId,
        material: hit.material?.name ?? '',
        instanceId: hit.instanceId,
      };
    },
    getWorldToScreenCoordinates: ({ position }) => {
      const out = { x: 0, y: 0, visible: false };
      return project(new Vector3(position[0], position[1], position[2]), out);
    },
    registerHotspots: ({ points }) => {
      // The limit is checked before anything changes: a refused call leaves the set as it was.
      let added = 0;
      const fresh = new Set<string>();
      for (const p of points) {
        if (!hotspots.has(p.id) && !fresh.has(p.id)) {
          fresh.add(p.id);
          added++;
        }
      }
      if (hotspots.size + added > MAX_HOTSPOTS) {
        throw new Error(`At most ${MAX_HOTSPOTS} hotspots may be registered (${hotspots.size} are, and this call adds ${added}).`);
      }
      for (const p of points) {
        const existing = hotspots.get(p.id);
        if (existing) existing.position.set(p.position[0], p.position[1], p.position[2]);
        else hotspots.set(p.id, { position: new Vector3(p.position[0], p.position[1], p.position[2]), out: { id: p.id, x: 0, y: 0, visible: false } });
      }
      hotspotList = [...hotspots.values()].map((h) => h.out);
      hotspotsDirty = true;
      return { count: hotspots.size };
    },
    unregisterHotspots: ({ ids }) => {
      if (ids) for (const id of ids) hotspots.delete(id);
      else hotspots.clear();
      hotspotList = [...hotspots.values()].map((h) => h.out);
      return { count: hotspots.size };
    },
    screenshot: ({ width, height, format, quality }) => {
      const s = pictureSize(width, height);
      return picture(viewer.screenshot({ width: s.width, height: s.height, format, quality }), s.width, s.height);
    },
    renderOffscreenFrame: (a) => renderOffscreen(a),
    setAuthToken: ({ token }) => {
      if (!options.auth) throw new Error('This viewer saves nothing as a person: it has no model service to check a token with.');
      return options.auth.set(token);
    },
    listAnnotations: () => store.list(),
    getAnnotation: async ({ id }) => {
      const found = (await store.list()).find((a) => a.id === id);
      if (!found) throw new Error(`There is no annotation '${id}'.`);
      return found;
    },
    createAnnotation: async ({ position, title, text, eye, target }) => {
      const camera = cameraState();
      const created = await store.create({ position, title, text: text ?? '', eye: eye ?? camera.position, target: target ?? camera.target });
      showPin(created);
      return created;
    },
    updateAnnotation: async ({ id, ...fields }) => {
      const updated = await store.update(id, fields);
      showPin(updated);
      return updated;
    },
    removeAnnotation: async ({ id }) => {
      await store.remove(id);
      const label = pins.get(id);
      if (label) labels.remove(label);
      pins.delete(id);
      return { ok: true as const };
    },
    gotoAnnotation: async ({ id, transition }) => {
      if (options.comments) {
        if (!(await options.comments.open(id, transition ?? true))) throw new Error(`There is no annotation '${id}'.`);
        return cameraState();
      }
      const found = (await store.list()).find((a) => a.id === id);
      if (!found) throw new Error(`There is no annotation '${id}'.`);
      await lookAt(found.eye, found.target, transition ?? true);
      return cameraState();
    },
  };

  /**
   * Renders from another camera into a picture without moving the view: the camera is posed, the
   * picture drawn (synchronously, inside the screenshot call), the pose restored and the viewport
   * drawn again in the same task, so the page never shows the other view.
   */
  const renderOffscreen = (a: HostParsedArgs<'renderOffscreenFrame'>) => {
    const camera = world.render.camera as PerspectiveCamera | OrthographicCamera | null;
    const scene = viewer.context.scene;
    const renderer = viewer.context.renderer;
    if (!camera) throw new Error('The viewer has no camera yet.');
    const saved = { position: camera.position.clone(), quaternion: camera.quaternion.clone(), fov: (camera as PerspectiveCamera).fov, zoom: camera.zoom, background: scene.background, clearAlpha: renderer.getClearAlpha() };
    const isPerspective = (camera as PerspectiveCamera).isPerspectiveCamera === true;
    controls.getPosition(v1, false);
    controls.getTarget(v2, false);
    const position = a.position ? new Vector3(...a.position) : v1.clone();
    const target = a.target ? new Vector3(...a.target) : v2.clone();
    if (position.distanceToSquared(target) === 0) throw new Error('position and target must differ: the camera needs a direction to look in.');
    // Nothing of the view changes before the draw (a refusal below leaves it as it was).
    const fov = isPerspective && a.fov !== undefined ? a.fov : saved.fov;
    let zoom = saved.zoom;
    if (a.fit) {
      const box = new Box3();
      for (const rec of world.models.values()) if (Visibility.visible[rec.eid] === 1) box.expandByObject(rec.root);
      if (box.isEmpty()) throw new Error('There is nothing to fit: no visible model.');
      const sphere = box.getBoundingSphere(new Sphere());
      const pad = a.fitPaddingFactor ?? FIT_PADDING_DEFAULT;
      const direction = position.clone().sub(target).normalize();
      const aspect = a.width / a.height;
      if (isPerspective) {
        const vfov = MathUtils.degToRad(fov);
        const hfov = 2 * Math.atan(Math.tan(vfov / 2) * aspect);
        const distance = (sphere.radius * pad) / Math.sin(Math.min(vfov, hfov) / 2);
        position.copy(sphere.center).addScaledVector(direction, distance);
      } else {
        const o = camera as OrthographicCamera;
        const half = (o.top - o.bottom) / 2;
        zoom = half / (sphere.radius * pad * Math.max(1, 1 / aspect));
        position.copy(sphere.center).addScaledVector(direction, sphere.radius * 4);
      }
      target.copy(sphere.center);
    }
    // Applied in the task that draws the picture (the screenshot's code may be fetched first).
    let placed = false;
    const place = () => {
      placed = true;
      // The view as it is now (it may have moved while the screenshot's code was fetched) comes back after.
      Object.assign(saved, { position: camera.position.clone(), quaternion: camera.quaternion.clone(), fov: (camera as PerspectiveCamera).fov, zoom: camera.zoom, background: scene.background, clearAlpha: renderer.getClearAlpha() });
      if (isPerspective) (camera as PerspectiveCamera).fov = fov;
      camera.zoom = zoom;
      camera.position.copy(position);
      // Straight down (or up) the default up is parallel to the view: use -Z as up there.
      const dir = v1.copy(target).sub(position).normalize();
      const up = camera.up.clone();
      if (Math.abs(dir.dot(camera.up)) > 0.999) camera.up.set(0, 0, -1);
      camera.lookAt(target);
      camera.up.copy(up);
      camera.updateProjectionMatrix();
      camera.updateMatrixWorld();
      if (a.transparent) {
        scene.background = null;
        renderer.setClearAlpha(0);
      }
    };
    let restored = false;
    const restore = () => {
      if (restored) return;
      restored = true;
      camera.position.copy(saved.position);
      camera.quaternion.copy(saved.quaternion);
      if (isPerspective) (camera as PerspectiveCamera).fov = saved.fov;
      camera.zoom = saved.zoom;
      camera.updateProjectionMatrix();
      camera.updateMatrixWorld();
      scene.background = saved.background;
      renderer.setClearAlpha(saved.clearAlpha);
    };
    // The screenshot calls beforeDraw, draws the picture, calls beforeViewport and draws the viewport
    // again, all in one task: the page never shows the other view.
    const blob = viewer
      .screenshot({ width: a.width, height: a.height, format: a.format ?? (a.transparent ? 'png' : undefined), quality: a.quality, beforeDraw: place, beforeViewport: restore })
      .catch((error: unknown) => {
        if (placed && !restored) {
          // The screenshot failed after the camera was placed: put the view back and draw it.
          restore();
          world.render.needsRender = true;
        }
        throw error;
      });
    return picture(blob, a.width, a.height);
  };

  // ---- outward events from the viewer's one emitter -----------------------------------------
  const on = viewer.events.on.bind(viewer.events);
  const emit = (event: HostEventName, data: unknown) => api.listening && api.emit(event, data);
  disposers.push(
    on('hit', (hit) => {
      const data = {
        position: [hit.point.x, hit.point.y, hit.point.z],
        normal: [hit.normal.x, hit.normal.y, hit.normal.z],
        distance: world.render.camera ? world.render.camera.position.distanceTo(v1.set(hit.point.x, hit.point.y, hit.point.z)) : 0,
        modelId: hit.modelId,
        nodeId: hit.nodeId,
        nodeName: hit.nodeName,
        materialId: hit.materialId,
        material: hit.materialName,
        instanceId: hit.instanceId,
      };
      emit('raycast', data);
      emit('selection', { modelId: hit.modelId, nodeId: hit.nodeId });
    }),
    on('background-hit', (e) => {
      const rect = options.canvas.getBoundingClientRect();
      emit('background.click', { x: e.clientX - rect.left, y: e.clientY - rect.top });
      emit('selection', { modelId: null, nodeId: null });
    }),
    on('animation', (e) => emit('animation', e)),
    on('measurement', (m) => emit('measurement', { action: m.action, id: m.id, kind: m.kind, value: m.value, label: m.label, points: m.points.map((p) => [p.x, p.y, p.z]) })),
    on('section', (s) => emit('section', { action: s.action, id: s.id, normal: [s.normal.x, s.normal.y, s.normal.z], constant: s.constant })),
    on('tool', (t) => emit('tool', t)),
    on('navigation', (n) => emit('navigation', n)),
  );

  // ---- requests: queued, applied by the message system ---------------------------------------
  disposers.push(
    onMessage(world, MESSAGE_TYPE, (_world, payload) => {
      const { func, args } = payload as { func: HostFunctionName; args: unknown };
      return (functions[func] as (a: unknown) => unknown)(args);
    }),
  );
  // Reads that only look (no picture drawn) are answered at once when no request of the host is
  // waiting in the queue: a message event never runs inside a frame, so they see the state the last
  // frame left. Behind a queued request they queue too, so a read after a change sees the change.
  let queued = 0;
  const execute: Execute = (func, args) => {
    if (queued === 0 && IMMEDIATE.has(func)) {
      try {
        return Promise.resolve((functions[func] as (a: unknown) => unknown)(args));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    queued++;
    return new Promise((resolve, reject) => {
      enqueueMessage(world, {
        source: 'host',
        type: MESSAGE_TYPE,
        payload: { func, args },
        reply: (result, error) => {
          queued--;
          if (error) reject(error);
          else Promise.resolve(result).then(resolve, reject);
        },
      });
    });
  };

  return {
    execute,
    functions,
    dispose() {
      for (const d of disposers.splice(0)) d();
      clearHighlight();
      labels.dispose();
      for (const { texture } of addedTextures.values()) texture.dispose();
      addedTextures.clear();
    },
  };
}

