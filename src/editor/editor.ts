import type { Material, Mesh, Object3D } from 'three';
import { query } from 'bitecs';
import { Color, Matrix4, Quaternion, Texture, Vector2, Vector3 } from 'three';
import type { InstanceGroupRecord } from '../engine/instances';
import { Light, Shadows, Transform, Visibility } from '../../components';
import { materialById, modelById, nodeEid, nodeIdOf } from '../engine/stable-ids';
import type { ModelRecord } from '../engine/world';
import { ERR_EDITOR_NOT_IMPLEMENTED } from '../protocol/editor';
import { MaterialProperties as MaterialPropertiesSchema, TEXTURE_MAP_PROPERTIES, type MaterialProperties, type Mutation, type NodeProperties, type TextureMap } from '../protocol/mutation';
import { applyMutations } from '../scene/apply-mutations';
import { decodeImage, loadUploadedTextures, registerUploadedTexture, uploadedTextureIds, type DecodeImage } from '../scene/uploaded-textures';
import { MAX_TEXTURE_BYTES, TEXTURE_CONTENT_TYPES, type UploadTextureResponse } from '../protocol/textures';
import { fetchEnvironmentCatalog } from '../scene/environments';
import type { EnvironmentCatalog } from '../protocol/environment';
import { shadowCost, viewFocus } from '../engine/lights';
import { defaultSceneObject, SceneObjectChange, shadowMapsOf, shadowMapWarning, type SceneObject, type SceneObjectType } from '../protocol/scene-objects';
import { SceneSettings, type SceneSettingsInput, type SceneSettingsValues } from '../protocol/scene-settings';
import { Emitter } from '../viewer/events';
import { applySceneSettings, readSceneSettings } from '../viewer/scene-settings';
import { SetSettingsCommand, type SettingsApplier } from './settings-command';
import { sceneObjectsOf, type SceneObjects } from '../viewer/scene-objects';
import { attachObjectHelpers } from './helpers';
import { SetObjectCommand, type ObjectApplier } from './object-commands';
import type { Viewer } from '../viewer/viewer';
import { CreateMaterialCommand, MultiCommand, SetMaterialCommand, SetNodeCommand, type EditApplier } from './commands';
import { createNodeGizmo, localMatrixOf, type GizmoMode, type GizmoSpace, type NodeGizmo } from './gizmo';
import { History, type HistoryStep } from './history';
import { materialMutation, MutationQueues, newUuid, nodeMutation, pickListed, propertiesProblem, type QueueSnapshot } from './mutation-queue';
import { countOf, type StoredQueue } from './persist';
import { createServiceClient, path } from '../service/client';
import { createSaver, INSTANCES_QUEUE, OBJECTS_QUEUE, SETTINGS_QUEUE, type QueueStore, type SaveState, type Saver } from './saver';
import { AddInstancesCommand, RemoveInstancesCommand, SetInstancesCommand } from './instance-commands';
import { besideMatrices, createBoxSelect, createInstanceApplier, groupOrThrow, readInstanceMatrices, replayInstanceChange } from './instance-editing';
import { createSelectionOutline, type SelectionOutline } from './selection-outline';
import type { InstanceChange } from '../protocol/instance-changes';
import { createInstanceGroup, instanceGroupByUuid, instanceGroupOf, instanceIds, type InstanceArrays, type InstanceAsset, type InstanceGroupOptionsBase } from '../engine/instances';

/**
 * What is selected: a node of a model (nodeId null when the hit has no registered node), or a
 * scene object (a light, camera or group: objectId set, modelId '').
 */
export interface Selection {
  /** Instances of an instanced asset group (by stable id), or null. objectId is then the group's uuid. */
  instances?: { groupId: string; ids: number[] } | null;
  modelId: string;
  /** The scene object's uuid, or null for a model node. */
  objectId: string | null;
  nodeId: string | null;
  name: string;
  /** The node's material (the first of its meshes), by id, when it has one. */
  materialId: string | null;
}

export interface EditorEventMap extends Record<string, unknown> {
  enabled: { enabled: boolean };
  selection: Selection | null;
  history: { steps: HistoryStep[]; canUndo: boolean; canRedo: boolean };
  save: SaveState;
  'saving-started': undefined;
  'saving-finished': undefined;
  /** Something the person must be told ('Not implemented', a problem applying an edit). */
  notice: { text: string };
  /**
   * The scene changed: the properties panel re-reads; `outline` when names, visibility or scene
   * objects changed (what the outliner shows): a material slider's ticks do not make the outliner
   * read anything.
   */
  scene: { outline: boolean };
  gizmo: { mode: GizmoMode; space: GizmoSpace };
  /** Box selection turned on or off. */
  'box-select': { on: boolean };
  /** The scene settings after a change was applied. */
  settings: SceneSettingsValues;
}

export interface EditorOptions {
  sceneId: string;
  modelService: string;
  getToken: () => Promise<string>;
  /** Where the unsaved queue is kept (IndexedDB in the browser). */
  store?: QueueStore;
  /** A queue left by an earlier visit, offered back (restoreUnsaved / discardUnsaved). */
  restorable?: StoredQueue | null;
  fetch?: typeof fetch;
  clock?: () => number;
  /** The scene's saved settings (viewerConfig.scene): a settings change saves them with the changed fields. */
  sceneSettings?: Record<string, unknown>;
  /** Sends a texture upload (default: XMLHttpRequest, for its upload progress). */
  sendUpload?: SendUpload;
  /** Decodes an image for a texture (default: createImageBitmap as glTF images are). */
  decodeImage?: DecodeImage;
  /** Loads an asset of the asset CDN (the viewer's cache) for placing it. */
  loadAsset?: (assetId: string) => Promise<{ asset: InstanceAsset; error?: Error | null }>;
}

export interface Editor {
  readonly events: Emitter<EditorEventMap>;
  readonly enabled: boolean;
  enable(): void;
  /** Clears the selection and switches the camera config from editor to simple. */
  disable(): void;
  readonly selection: Selection | null;
  select(modelId: string | null, nodeId?: string | null): void;
  readonly gizmo: NodeGizmo;
  setGizmoMode(mode: GizmoMode): void;
  setGizmoSpace(space: GizmoSpace): void;
  readonly history: History;
  readonly queues: MutationQueues;
  readonly saver: Saver;
  /** The scene's lights, cameras and groups. */
  readonly objects: SceneObjects;
  /** Adds a light, camera or group (one undoable step) and selects it; returns its uuid. */
  addObject(type: SceneObjectType, fields?: Partial<SceneObject>): string;
  /** Changes fields of a scene object (one undoable step, merged within 500 ms). */
  setObject(uuid: string, fields: Partial<Omit<SceneObject, 'uuid' | 'type'>>, name?: string): void;
  /** Removes a scene object and everything under it (one undoable step). */
  removeObject(uuid: string): void;
  readObject(uuid: string): SceneObject | null;
  /** Changes scene settings (only the fields given) as one undoable step, merged within 500 ms; saved with the scene. */
  setSettings(fields: SceneSettingsInput, name?: string): void;
  /** The complete scene settings now. */
  readSettings(): SceneSettingsValues;
  /** The environment catalogue (for the scene settings panel). */
  environments(): Promise<EnvironmentCatalog>;
  /** The view now, as an initial camera (position and orbit target). */
  currentView(): { position: { x: number; y: number; z: number }; target: { x: number; y: number; z: number } };
  selectObject(uuid: string | null): void;
  /** Selects instances of one group (replacing the selection); an empty list clears it. */
  selectInstances(groupId: string, ids: readonly number[]): void;
  /**
   * Puts one instance of an asset of the asset CDN where the view looks (the asset library's
   * Place): into the scene's group of that asset, or a new group; one undoable step; selected.
   */
  placeAsset(assetId: string, name?: string): Promise<void>;
  /** Box selection: while on, a drag on the view selects the instances inside its rectangle. */
  boxSelect: boolean;
  setBoxSelect(on: boolean): void;
  undo(): void;
  redo(): void;
  save(): Promise<void>;
  /** Changes listed properties of a node as one undoable step (merged within 500 ms). */
  setNode(modelId: string, nodeId: string, properties: NodeProperties, name?: string): void;
  setMaterial(modelId: string, materialId: string, properties: MaterialProperties, name?: string): void;
  /**
   * Creates a material in a model (createMaterial; by default a copy of `from`'s listed values) and,
   * with `nodeId`, assigns it to that node: one undoable step. Returns the new materialId.
   */
  createMaterial(modelId: string, options: { name: string; from?: string; properties?: MaterialProperties; nodeId?: string }): string;
  /** The model's materials (id and name), for the material picker. */
  listMaterials(modelId: string): { materialId: string; name: string }[];
  /** The model's textures by id (for texture maps), uploaded ones ('u-…') included. */
  listTextures(modelId: string): string[];
  /**
   * Uploads an image (PNG, JPEG or WebP, at most 16 MB) as a texture of the model
   * (POST {modelService}/v1/models/{modelId}/textures) and registers it in the model's textures;
   * resolves with its textureId for a texture map (setMaterial). Nothing changes in the scene
   * until a map names it. Rejects with a sentence saying why (type, size, decoding, the server).
   */
  uploadTexture(modelId: string, file: Blob, options?: { onProgress?: (fraction: number) => void }): Promise<string>;
  /** The node's current values of the given properties. */
  readNode(modelId: string, nodeId: string, keys: (keyof NodeProperties)[]): NodeProperties;
  readMaterial(modelId: string, materialId: string, keys: string[]): MaterialProperties;
  /** Delete or Backspace: hides the selected model node (updateNode visible=false, undoable), removes a scene object or the selected instances. */
  deleteSelection(): void;
  /** Ctrl+C: copies the selected instances beside them (and selects the copies); a model node's copy is not implemented (told). */
  copySelection(): void;
  /** The count and date of unsaved edits from an earlier visit, or null. */
  readonly restorable: { count: number; savedAt: number } | null;
  restoreUnsaved(): void;
  discardUnsaved(): void;
  dispose(): void;
}

/**
 * The editor on a viewer (editor specification sections 2-5): enabled or disabled; selection by a
 * click (the viewer's 'hit' / 'background-hit'); the transform gizmo for nodes; commands and
 * history keyed by stable ids; every change applied live through the same code that replays the
 * saved log (src/scene/apply-mutations.ts) and queued as a mutation; saving; the shortcuts of the
 * key map's editor context.
 */
export function createEditor(viewer: Viewer, options: EditorOptions): Editor {
  const world = viewer.world;
  const events = new Emitter<EditorEventMap>();
  const queues = new MutationQueues();
  const history = new History({ clock: options.clock });
  let enabled = false;
  let selection: Selection | null = null;
  /** restoreUnsaved loaded the uploaded textures the queue names (or tried): once. */
  let texturesTried = false;
  let restorable = options.restorable && countOf(options.restorable.queues) > 0 ? options.restorable : null;
  const offs: (() => void)[] = [];

  const recordOf = (modelId: string): ModelRecord => {
    const record = modelById(world, modelId);
    if (!record) throw new Error(`The scene has no model '${modelId}'.`);
    return record;
  };

  const apply = (modelId: string, mutation: Mutation) => {
    const { problems } = applyMutations(world, recordOf(modelId), [mutation]);
    for (const text of problems) events.emit('notice', { text });
    queues.add(modelId, mutation);
  };

  const applier: EditApplier = {
    applyNode(modelId, nodeId, properties) {
      const mutation = nodeMutation(modelId, nodeId, properties as Record<string, unknown>);
      if (!mutation) return;
      const { modelId: _m, ...wire } = mutation;
      apply(modelId, wire as Mutation);
      if (properties.material !== undefined && selection?.modelId === modelId && selection.nodeId === nodeId) {
        selection = { ...selection, materialId: properties.material };
        events.emit('selection', selection);
      }
      if (properties.name !== undefined || properties.visible !== undefined) events.emit('scene', { outline: true });
      else if (properties.material !== undefined) events.emit('scene', { outline: false });
    },
    applyMaterial(modelId, materialId, properties) {
      const mutation = materialMutation(modelId, materialId, properties as Record<string, unknown>);
      if (!mutation) return;
      const { modelId: _m, ...wire } = mutation;
      apply(modelId, wire as Mutation);
      events.emit('scene', { outline: false });
    },
    createMaterial(modelId, materialId, name, properties) {
      if (materialById(recordOf(modelId), materialId)) return;
      const listed = pickListed('material', properties as Record<string, unknown>);
      apply(modelId, { key: `material/${materialId}/create`, uuid: newUuid(), createdAt: Date.now(), type: 'createMaterial', materialId, name, properties: listed as MaterialProperties });
      events.emit('scene', { outline: false });
    },
  };

  const objects = sceneObjectsOf(world, viewer.context.scene);
  const helpers = attachObjectHelpers(world, viewer.context.scene, objects, false);

  // The selection's outline, drawn over every picture on every tier.
  const outline: SelectionOutline = createSelectionOutline(world);
  /** What a scene object's outline follows: an instanced group's meshes, else the helpers of it and of what is under it. */
  const objectOutline = (uuid: string): Object3D[] => {
    const entry = objects.get(uuid);
    if (!entry) return [];
    if (entry.data.type === 'InstancedAssetGroup') return [entry.object];
    const out: Object3D[] = [];
    const visit = (id: string) => {
      const helper = helpers.helperOf(id);
      if (helper) out.push(helper);
      for (const child of objects.children(id)) visit(child);
    };
    visit(uuid);
    return out;
  };
  // A change of scene objects may replace a helper: the outline follows the selection's new ones.
  offs.push(
    objects.onChange(() => {
      if (selection?.objectId && !selection.instances) outline.showObjects(objectOutline(selection.objectId));
    }),
  );

  // Instances of instanced asset groups: live in the engine, queued as instance changes.
  const instanceApplier = createInstanceApplier(world, queues, (groupId, removed) => {
    const current = selection?.instances;
    if (removed && current && current.groupId === groupId) {
      const gone = new Set(removed);
      const left = current.ids.filter((id) => !gone.has(id));
      if (left.length !== current.ids.length) editor.selectInstances(groupId, left);
    }
    events.emit('scene', { outline: false });
  });
  let boxSelect = false;
  /** The key map's snapping key (gizmo-snap) is held. */
  let snapHeld = false;
  /** Assets placed from the library in this session, by id (a new group of one is drawn with it). */
  const placedAssets = new Map<string, InstanceAsset>();
  /** Instanced groups removed by an edit, kept for its undo (their asset, ids and matrices). */
  const removedGroups = new Map<string, Pick<InstanceGroupOptionsBase, 'asset' | 'revision'> & Omit<InstanceArrays, 'prepared'>>();

  /** Shadow maps every casting light other than `except` needs (the sun, model lights, scene objects). */
  const otherShadowMaps = (exceptEid: number): number => {
    let total = 0;
    for (const eid of query(world, [Light])) {
      if (eid === exceptEid || Light.wantsShadow[eid] === 0) continue;
      const object = world.objects[eid];
      if (object && !object.visible) continue;
      total += shadowCost(Light.type[eid]);
    }
    return total;
  };

  const objectApplier: ObjectApplier = {
    applyObject(uuid, data) {
      // The shadow-map check: warned before the change that would pass 12, naming the light.
      if (data && shadowMapsOf(data) > 0) {
        const warning = shadowMapWarning(otherShadowMaps(objects.get(uuid)?.eid ?? 0), data);
        if (warning) events.emit('notice', { text: warning });
      }
      if (data) {
        const entry = objects.put(data);
        // A removed instanced group put back (an undo): its instances as they were. The server
        // keeps a removed group's set, so the saved put finds them there too.
        const kept = removedGroups.get(uuid);
        if (kept && data.type === 'InstancedAssetGroup' && !instanceGroupOf(world, entry.eid)) {
          removedGroups.delete(uuid);
          createInstanceGroup(world, entry.eid, { uuid, ...kept, castShadow: data.castShadow ?? true, receiveShadow: true });
        } else if (data.type === 'InstancedAssetGroup' && !instanceGroupOf(world, entry.eid) && placedAssets.has(data.assetId!)) {
          // A group made in this editor (Place): empty until its first instance is added.
          createInstanceGroup(world, entry.eid, { uuid, asset: placedAssets.get(data.assetId!)!, ids: new Uint32Array(0), matrices: new Float32Array(0), castShadow: data.castShadow ?? true, receiveShadow: true });
        }
      } else {
        if (selection?.objectId === uuid) editor.select(null);
        const entry = objects.get(uuid);
        const group = entry ? instanceGroupOf(world, entry.eid) : null;
        if (group) {
          const ids = Array.from(instanceIds(group));
          removedGroups.set(uuid, { asset: group.asset, ids: Uint32Array.from(ids), matrices: readInstanceMatrices(group, ids), nextId: group.nextId, revision: group.revision });
        }
        objects.remove(uuid);
      }
      const change: SceneObjectChange = data
        ? { key: `object/${uuid}`, uuid: newUuid(), createdAt: Date.now(), type: 'putObject', objectId: uuid, object: data }
        : { key: `object/${uuid}`, uuid: newUuid(), createdAt: Date.now(), type: 'removeObject', objectId: uuid };
      queues.add(OBJECTS_QUEUE, change);
      if (selection?.objectId === uuid && data) {
        selection = { ...selection, name: data.name };
        events.emit('selection', selection);
      }
      events.emit('scene', { outline: true });
    },
  };

  // The scene's saved settings; a change saves them with the changed fields (PATCH viewer-config).
  let savedSettings: Record<string, unknown> = { ...(options.sceneSettings ?? {}) };
  const settingsApplier: SettingsApplier = {
    applySettings(fields) {
      const parsed = SceneSettings.safeParse(fields);
      if (!parsed.success) {
        events.emit('notice', { text: `The scene settings were not changed: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` });
        return;
      }
      const keys = Object.keys(parsed.data) as (keyof SceneSettingsValues)[];
      const save = () => {
        // What was applied (a rule may have kept a field: an environment background without an environment).
        const now = readSceneSettings(viewer) as Record<string, unknown>;
        for (const key of keys) savedSettings[key] = now[key];
        queues.add(SETTINGS_QUEUE, { key: 'settings', uuid: newUuid(), createdAt: Date.now(), type: 'setSettings', properties: { ...savedSettings } });
        events.emit('settings', readSceneSettings(viewer));
      };
      applySceneSettings(viewer, fields, { onWarning: (text) => events.emit('notice', { text }) }).then(save, (error) => {
        events.emit('notice', { text: `The scene settings could not be applied: ${(error as Error).message}` });
      });
    },
  };

  // The queue is kept with any edits left from an earlier visit until the person answers the offer.
  const store: QueueStore | undefined = options.store && {
    write: (snapshot) => options.store!.write(restorable ? mergeSnapshots(restorable.queues, snapshot) : snapshot),
  };

  // The model service's one client: the saves (which retry on their own: no retries here) and the texture uploads.
  const service = createServiceClient({ baseUrl: options.modelService, token: options.getToken, fetch: options.fetch, retries: 0 });
  const saver = createSaver({
    queues,
    modelService: options.modelService,
    sceneId: options.sceneId,
    getToken: options.getToken,
    enabled: () => enabled,
    service,
    store,
    onState: (state) => events.emit('save', state),
    onEvent: (event) => events.emit(event, undefined),
  });

  offs.push(history.onChange(() => events.emit('history', { steps: history.steps(), canUndo: history.canUndo, canRedo: history.canRedo })));

  const gizmo = createNodeGizmo({
    world,
    scene: viewer.context.scene,
    canvas: viewer.context.renderer.domElement,
    pointer: viewer.pointer,
    camera: () => viewer.navigation.camera,
    snap: () => snapHeld,
    enabled: () => enabled,
    onInstancesDragEnd(target, before, after) {
      const verb = gizmo.mode === 'translate' ? 'Move' : gizmo.mode === 'rotate' ? 'Rotate' : 'Scale';
      // The drag already moved them; executing writes the same matrices and queues the change.
      history.execute(new SetInstancesCommand(instanceApplier, target.groupId, [...target.ids], before, after, `${verb} ${describeInstances(target.groupId, target.ids)}`));
    },
    onDragEnd(eid, before, after) {
      const objectId = objects.uuidOf(eid);
      if (objectId) {
        const data = objects.get(objectId)!.data;
        const trs = (matrix: number[]) => {
          dm.fromArray(matrix).decompose(dp, dq, ds);
          return { position: dp.toArray() as [number, number, number], quaternion: dq.toArray() as [number, number, number, number], scale: ds.toArray() as [number, number, number] };
        };
        const verb = gizmo.mode === 'translate' ? 'Move' : gizmo.mode === 'rotate' ? 'Rotate' : 'Scale';
        history.execute(new SetObjectCommand(objectApplier, objectId, { ...data, ...trs(before) }, { ...data, ...trs(after) }, { name: `${verb} ${data.name}`, updatable: false }));
        return;
      }
      const record = [...world.models.values()].find((r) => r.nodeIds.has(eid));
      const nodeId = record ? nodeIdOf(record, eid) : null;
      if (!record || !nodeId) return;
      // The drag already moved the node; executing writes the same matrix and queues it.
      history.execute(new SetNodeCommand(applier, record.modelId, nodeId, { matrix: before }, { matrix: after }, { name: `${gizmo.mode === 'translate' ? 'Move' : gizmo.mode === 'rotate' ? 'Rotate' : 'Scale'} ${world.objects[eid]?.name || nodeId}`, updatable: false }));
    },
  });

  const materialOfNode = (record: ModelRecord, object: Object3D): string | null => {
    let found: string | null = null;
    object.traverse((o) => {
      if (found) return;
      const mesh = o as Mesh;
      if (!mesh.isMesh) return;
      const material = (Array.isArray(mesh.material) ? mesh.material[0] : mesh.material) as Material;
      found = record.materialIds.get(material) ?? null;
    });
    return found;
  };

  const editor: Editor = {
    events,
    get enabled() {
      return enabled;
    },
    enable() {
      if (enabled) return;
      enabled = true;
      helpers.setShown(true);
      viewer.navigation.setCameraConfig('editor');
      events.emit('enabled', { enabled });
    },
    disable() {
      if (!enabled) return;
      editor.select(null);
      enabled = false;
      helpers.setShown(false);
      viewer.navigation.setCameraConfig('simple');
      events.emit('enabled', { enabled });
    },
    get selection() {
      return selection;
    },
    select(modelId, nodeId = null) {
      if (!modelId) {
        selection = null;
        outline.clear();
        gizmo.attach(0);
        events.emit('selection', null);
        return;
      }
      const record = recordOf(modelId);
      const eid = nodeId ? nodeEid(record, nodeId) : 0;
      const object = eid ? world.objects[eid] : undefined;
      selection = { modelId, objectId: null, nodeId: object ? nodeId : null, name: object?.name || nodeId || record.name, materialId: object ? materialOfNode(record, object) : null };
      // The gizmo only for objects with a nodeId.
      gizmo.attach(object ? eid : 0);
      outline.showObjects(object ? [object] : []);
      events.emit('selection', selection);
    },
    gizmo,
    setGizmoMode(mode) {
      gizmo.mode = mode;
      events.emit('gizmo', { mode: gizmo.mode, space: gizmo.space });
    },
    setGizmoSpace(space) {
      gizmo.space = space;
      events.emit('gizmo', { mode: gizmo.mode, space: gizmo.space });
    },
    history,
    queues,
    saver,
    objects,
    addObject(type, fields = {}) {
      if (!enabled) throw new Error('The editor is disabled: enable it to add objects.');
      const uuid = newUuid();
      const count = objects.list().filter((o) => o.type === type).length;
      const base = defaultSceneObject(type, uuid);
      const data: SceneObject = { ...base, name: count ? `${base.name} ${count + 1}` : base.name, ...fields, uuid, type };
      history.execute(new SetObjectCommand(objectApplier, uuid, null, data));
      editor.selectObject(uuid);
      return uuid;
    },
    setObject(uuid, fields, name) {
      if (!enabled) return;
      const before = objects.get(uuid)?.data;
      if (!before) throw new Error(`The scene has no object '${uuid}'.`);
      const after = { ...before, ...fields, uuid, type: before.type } as SceneObject;
      history.execute(new SetObjectCommand(objectApplier, uuid, before, after, { name }));
    },
    removeObject(uuid) {
      if (!enabled) return;
      const data = objects.get(uuid)?.data;
      if (!data) return;
      // The object and its descendants, deepest first; undo puts them back parents first.
      const order: SceneObject[] = [];
      const visit = (id: string) => {
        for (const child of objects.children(id)) visit(child);
        order.push(objects.get(id)!.data);
      };
      visit(uuid);
      const commands = order.map((o) => new SetObjectCommand(objectApplier, o.uuid, o, null));
      history.execute(commands.length === 1 ? commands[0] : new MultiCommand(commands, `Remove ${data.name}`));
    },
    setSettings(fields, name) {
      if (!enabled) return;
      const now = readSceneSettings(viewer) as Record<string, unknown>;
      const before: Record<string, unknown> = {};
      for (const key of Object.keys(fields)) before[key] = now[key];
      history.execute(new SetSettingsCommand(settingsApplier, before as SceneSettingsInput, fields, name));
    },
    readSettings() {
      return readSceneSettings(viewer);
    },
    environments() {
      return fetchEnvironmentCatalog();
    },
    currentView() {
      const camera = viewer.navigation.camera;
      const target = viewFocus(world, new Vector3());
      return { position: { x: camera.position.x, y: camera.position.y, z: camera.position.z }, target: { x: target.x, y: target.y, z: target.z } };
    },
    readObject(uuid) {
      return objects.get(uuid)?.data ?? null;
    },
    selectObject(uuid) {
      const entry = uuid ? objects.get(uuid) : undefined;
      if (!entry) {
        editor.select(null);
        return;
      }
      selection = { modelId: '', objectId: entry.data.uuid, nodeId: null, name: entry.data.name, materialId: null };
      // An ambient light has no place: no gizmo (and no helper to outline).
      gizmo.attach(entry.data.type === 'AmbientLight' ? 0 : entry.eid);
      outline.showObjects(objectOutline(entry.data.uuid));
      events.emit('selection', selection);
    },
    selectInstances(groupId, ids) {
      const group = instanceGroupByUuid(world, groupId);
      const live = group ? ids.filter((id) => group.index.get(id) >= 0) : [];
      if (!group || live.length === 0) {
        editor.select(null);
        return;
      }
      selection = { modelId: '', objectId: groupId, nodeId: null, name: describeInstances(groupId, live), materialId: null, instances: { groupId, ids: [...live] } };
      gizmo.attachInstances({ groupId, ids: live });
      outline.showInstances(groupId, live);
      events.emit('selection', selection);
    },
    async placeAsset(assetId, name) {
      if (!enabled) throw new Error('The editor is disabled: enable it to place assets.');
      const focus = viewFocus(world, new Vector3());
      const place = new Matrix4().makeTranslation(focus.x, focus.y, focus.z);
      let existing: InstanceGroupRecord | null = null;
      for (const g of world.instanceGroups.values()) if (g.asset.assetId === assetId && !g.asset.placeholder && objects.get(g.uuid)) existing = g;
      if (existing) {
        const local = new Matrix4().copy(existing.object.matrixWorld).invert().multiply(place);
        const id = existing.nextId;
        history.execute(new AddInstancesCommand(instanceApplier, existing.uuid, [id], new Float32Array(local.elements), `Place ${describeInstances(existing.uuid, [id])}`));
        editor.selectInstances(existing.uuid, [id]);
        return;
      }
      const loaded = options.loadAsset ? await options.loadAsset(assetId) : null;
      if (!loaded || loaded.error || loaded.asset.placeholder) {
        events.emit('notice', { text: `The asset "${name ?? assetId}" could not be placed: ${loaded?.error?.message ?? 'it could not be loaded'}` });
        return;
      }
      placedAssets.set(assetId, loaded.asset);
      const uuid = newUuid();
      const base = defaultSceneObject('InstancedAssetGroup', uuid, name ?? assetId);
      const data: SceneObject = { ...base, assetId };
      const create = new SetObjectCommand(objectApplier, uuid, null, data);
      const first = new AddInstancesCommand(instanceApplier, uuid, [0], new Float32Array(place.elements), `Place ${data.name}`);
      history.execute(new MultiCommand([create, first], `Place ${data.name}`));
      editor.selectInstances(uuid, [0]);
    },
    get boxSelect() {
      return boxSelect;
    },
    setBoxSelect(on) {
      if (boxSelect === on) return;
      boxSelect = on && enabled;
      events.emit('box-select', { on: boxSelect });
    },
    undo() {
      if (enabled) history.undo();
    },
    redo() {
      if (enabled) history.redo();
    },
    save() {
      return saver.save();
    },
    setNode(modelId, nodeId, properties, name) {
      if (!enabled) return;
      const problem = propertiesProblem('node', properties as Record<string, unknown>);
      if (problem) return void events.emit('notice', { text: `The edit was not made: ${problem}` });
      const keys = Object.keys(properties) as (keyof NodeProperties)[];
      const before = editor.readNode(modelId, nodeId, keys);
      history.execute(new SetNodeCommand(applier, modelId, nodeId, before, properties, { name }));
    },
    setMaterial(modelId, materialId, properties, name) {
      if (!enabled) return;
      const problem = propertiesProblem('material', properties as Record<string, unknown>);
      if (problem) return void events.emit('notice', { text: `The edit was not made: ${problem}` });
      const execute = () => {
        const before = editor.readMaterial(modelId, materialId, Object.keys(properties));
        history.execute(new SetMaterialCommand(applier, modelId, materialId, before, properties, { name }));
      };
      // A map naming an uploaded texture this model has not loaded yet: load it first.
      const record = recordOf(modelId);
      const missing = uploadedTextureIds([{ type: 'updateMaterial', properties }]).filter((id) => !record.textures.has(id));
      if (missing.length === 0) return execute();
      void loadUploadedTextures(options.modelService, record, [{ type: 'updateMaterial', properties }], { decode: options.decodeImage }).then((problems) => {
        if (problems.length > 0) {
          for (const text of problems) events.emit('notice', { text: `The edit was not made: ${text}` });
          return;
        }
        if (enabled) execute();
      });
    },
    async uploadTexture(modelId, file, { onProgress } = {}) {
      const record = recordOf(modelId);
      const type = file.type.toLowerCase();
      if (!(type in TEXTURE_CONTENT_TYPES)) throw new Error(`A texture must be a PNG, JPEG or WebP image, not ${type ? `'${type}'` : 'a file of unknown type'}.`);
      if (file.size > MAX_TEXTURE_BYTES) throw new Error(`The image is ${(file.size / 1048576).toFixed(1)} MB; a texture may be at most ${MAX_TEXTURE_BYTES / 1048576} MB.`);
      // Decoded before it is sent: an image this browser cannot show is not uploaded.
      let image: Awaited<ReturnType<DecodeImage>>;
      try {
        image = await (options.decodeImage ?? decodeImage)(file);
      } catch (error) {
        throw new Error(`The image could not be decoded (${error instanceof Error ? error.message : String(error)}); it was not uploaded.`);
      }
      let token: string;
      try {
        token = await options.getToken();
      } catch (error) {
        throw new Error(`Sign in to upload textures (${error instanceof Error ? error.message : String(error)}).`);
      }
      const textures = path`/v1/models/${modelId}/textures`;
      const url = service.url(textures);
      const answer = await (options.sendUpload ?? xhrUpload)(url, file, { 'content-type': type, authorization: `Bearer ${token}` }, onProgress);
      let body: unknown;
      try {
        body = answer.text ? JSON.parse(answer.text) : undefined;
      } catch {
        body = undefined;
      }
      if (answer.status !== 201 && answer.status !== 200) {
        throw new Error(`The texture upload was refused: ${service.errorOf('POST', textures, answer.status, body).reason ?? `HTTP ${answer.status}`}.`);
      }
      const { textureId } = (body ?? {}) as Partial<UploadTextureResponse>;
      if (typeof textureId !== 'string' || !textureId.startsWith('u-')) throw new Error(`The texture upload answered without a textureId (${url}).`);
      registerUploadedTexture(record, textureId, image);
      return textureId;
    },
    createMaterial(modelId, { name, from, properties = {}, nodeId }) {
      if (!enabled) throw new Error('The editor is disabled: enable it to create materials.');
      const record = recordOf(modelId);
      const materialId = `m-${newUuid().slice(0, 12)}`;
      const copied: Record<string, unknown> = from ? { ...editor.readMaterial(modelId, from, [...MATERIAL_VALUE_KEYS]) } : {};
      // A map whose texture the model does not name cannot be carried by a mutation: the copy goes without it.
      for (const key of TEXTURE_MAP_PROPERTIES) {
        const map = copied[key] as TextureMap | undefined;
        if (map === null || (map && map.textureId === undefined)) delete copied[key];
      }
      const create = new CreateMaterialCommand(applier, modelId, materialId, name, { ...copied, ...properties, name });
      if (!nodeId) {
        history.execute(create);
        return materialId;
      }
      const before = editor.readNode(modelId, nodeId, ['material']);
      const assign = new SetNodeCommand(applier, modelId, nodeId, before, { material: materialId }, { name: `Assign ${name}`, updatable: false });
      history.execute(new MultiCommand([create, assign], `New material ${name} on ${world.objects[nodeEid(record, nodeId)]?.name || nodeId}`));
      return materialId;
    },
    listMaterials(modelId) {
      return [...recordOf(modelId).materials.entries()].map(([materialId, material]) => ({ materialId, name: material.name || materialId }));
    },
    listTextures(modelId) {
      return [...recordOf(modelId).textures.keys()];
    },
    readNode(modelId, nodeId, keys) {
      const record = recordOf(modelId);
      const eid = nodeEid(record, nodeId);
      const object = world.objects[eid];
      if (!eid || !object) throw new Error(`The model has no node '${nodeId}'.`);
      const out: NodeProperties = {};
      for (const key of keys) {
        if (key === 'matrix') out.matrix = localMatrixOf(eid);
        else if (key === 'visible') out.visible = Visibility.visible[eid] === 1;
        else if (key === 'name') out.name = object.name;
        else if (key === 'castShadow') out.castShadow = Shadows.cast[eid] === 1;
        else if (key === 'receiveShadow') out.receiveShadow = Shadows.receive[eid] === 1;
        else if (key === 'material') {
          const materialId = materialOfNode(record, object);
          if (materialId) out.material = materialId;
        }
      }
      return out;
    },
    readMaterial(modelId, materialId, keys) {
      const material = materialById(recordOf(modelId), materialId) as unknown as Record<string, unknown> | undefined;
      if (!material) throw new Error(`The model has no material '${materialId}'.`);
      const record = recordOf(modelId);
      const out: Record<string, unknown> = {};
      for (const key of keys) {
        const value = material[key];
        if (TEXTURE_MAPS.has(key)) {
          // Only the maps this kind of material has.
          if (value === undefined) continue;
          out[key] = value instanceof Texture ? textureInfoOf(record, value) : null;
          continue;
        }
        if (value instanceof Color) out[key] = value.getHex();
        else if (value instanceof Vector2) out[key] = [value.x, value.y];
        else if (typeof value === 'number' || typeof value === 'string') out[key] = value;
      }
      return out as MaterialProperties;
    },
    deleteSelection() {
      if (enabled && selection?.instances) {
        const { groupId, ids } = selection.instances;
        const matrices = readInstanceMatrices(groupOrThrow(world, groupId), ids);
        const name = `Delete ${describeInstances(groupId, ids)}`;
        editor.select(null);
        history.execute(new RemoveInstancesCommand(instanceApplier, groupId, ids, matrices, name));
        return;
      }
      if (enabled && selection?.objectId) {
        editor.removeObject(selection.objectId);
        return;
      }
      if (!enabled || !selection?.nodeId) return;
      const { modelId, nodeId, name } = selection;
      editor.setNode(modelId, nodeId, { visible: false }, `Hide ${name}`);
      editor.select(null);
    },
    copySelection() {
      if (!enabled || !selection) return;
      if (selection.instances) {
        const { groupId, ids } = selection.instances;
        const group = groupOrThrow(world, groupId);
        const matrices = besideMatrices(group, ids);
        const copies = ids.map((_, i) => group.nextId + i);
        history.execute(new AddInstancesCommand(instanceApplier, groupId, copies, matrices, `Copy ${describeInstances(groupId, ids)}`));
        editor.selectInstances(groupId, copies);
        return;
      }
      events.emit('notice', { text: ERR_EDITOR_NOT_IMPLEMENTED });
    },
    get restorable() {
      return restorable ? { count: countOf(restorable.queues), savedAt: restorable.savedAt } : null;
    },
    restoreUnsaved() {
      if (!restorable) return;
      // Unsaved maps naming uploaded textures not loaded yet: load them, then restore.
      const pending = texturesTried
        ? []
        : Object.entries(restorable.queues).filter(([modelId, list]) => {
            const record = modelById(world, modelId);
            return record && uploadedTextureIds(list).some((id) => !record.textures.has(id));
          });
      if (pending.length > 0) {
        texturesTried = true;
        const queued = restorable;
        restorable = null;
        void Promise.all(
          pending.map(([modelId, list]) => loadUploadedTextures(options.modelService, modelById(world, modelId)!, list, { decode: options.decodeImage })),
        ).then((problems) => {
          for (const text of problems.flat()) events.emit('notice', { text });
          restorable = queued;
          editor.restoreUnsaved();
        });
        return;
      }
      const left = restorable.queues;
      restorable = null;
      // Models the scene no longer has: told, not queued.
      const known: QueueSnapshot = {};
      for (const [modelId, list] of Object.entries(left)) {
        if (modelId !== SETTINGS_QUEUE && modelId !== OBJECTS_QUEUE && modelId !== INSTANCES_QUEUE && !modelById(world, modelId)) {
          events.emit('notice', { text: `${list.length} unsaved edit(s) of model '${modelId}' were dropped: the scene no longer has that model.` });
          continue;
        }
        // The settings queue holds the whole settings: the last one is enough.
        known[modelId] = modelId === SETTINGS_QUEUE ? list.slice(-1) : list;
      }
      // The old edits go before what the person edited since; one never replaces a newer edit of
      // the same key, and only those queued are shown.
      const restored = queues.restore(known);
      for (const [modelId, list] of Object.entries(restored)) {
        if (modelId === SETTINGS_QUEUE) {
          const last = list[list.length - 1] as unknown as { properties: Record<string, unknown> };
          savedSettings = { ...last.properties };
          void applySceneSettings(viewer, last.properties, { onWarning: (text) => events.emit('notice', { text }) }).then((values) => events.emit('settings', values));
          continue;
        }
        if (modelId === OBJECTS_QUEUE) {
          for (const change of list as unknown as SceneObjectChange[]) {
            if (change.type === 'putObject') objects.put(change.object);
            else objects.remove(change.objectId);
          }
          continue;
        }
        if (modelId === INSTANCES_QUEUE) {
          for (const change of list as unknown as InstanceChange[]) {
            try {
              replayInstanceChange(world, change);
            } catch (error) {
              events.emit('notice', { text: `An unsaved change of instances could not be shown (${(error as Error).message}); it stays queued and is sent on Save.` });
            }
          }
          continue;
        }
        const { problems } = applyMutations(world, recordOf(modelId), list);
        for (const text of problems) events.emit('notice', { text });
      }
      events.emit('scene', { outline: true });
    },
    discardUnsaved() {
      if (!restorable) return;
      restorable = null;
      void store?.write(queues.snapshot());
    },
    dispose() {
      for (const off of offs) off();
      boxSelector.dispose();
      outline.dispose();
      helpers.detach();
      saver.dispose();
      gizmo.dispose();
      events.clear();
    },
  };

  // Selection by a click: the viewer raises 'hit' / 'background-hit' for clicks no tool took.
  offs.push(
    viewer.events.on('hit', (hit) => {
      if (!enabled || gizmo.dragging) return;
      if (hit.groupId && hit.instanceId !== null) return void editor.selectInstances(hit.groupId, [hit.instanceId]);
      if (!hit.modelId) return;
      editor.select(hit.modelId, hit.nodeId);
    }),
    viewer.events.on('background-hit', () => {
      if (enabled && !gizmo.dragging) editor.select(null);
    }),
  );

  // The editor context of the one key map. A key is taken only while the editor is enabled.
  const when = (fn: () => void) => () => {
    if (!enabled) return false;
    fn();
    return true;
  };
  offs.push(
    viewer.keys.bind('undo', when(() => editor.undo())),
    viewer.keys.bind('redo', when(() => editor.redo())),
    viewer.keys.bind('save', when(() => void editor.save())),
    viewer.keys.bind('translate-mode', when(() => editor.setGizmoMode('translate'))),
    viewer.keys.bind('rotate-mode', when(() => editor.setGizmoMode('rotate'))),
    viewer.keys.bind('scale-mode', when(() => editor.setGizmoMode('scale'))),
    viewer.keys.bind('copy', () => {
      if (!enabled || !selection) return false;
      editor.copySelection();
      return true;
    }),
    viewer.keys.bind('delete', () => {
      if (!enabled || (!selection?.nodeId && !selection?.objectId)) return false;
      editor.deleteSelection();
      return true;
    }),
    viewer.keys.bind('box-select', when(() => editor.setBoxSelect(!boxSelect))),
    // The snapping key of the key map (Shift), held during a gizmo drag.
    viewer.keys.bind('gizmo-snap', (press) => {
      if (!press.pressed) {
        snapHeld = false;
        return true;
      }
      if (!enabled || (!gizmo.eid && !gizmo.instances)) return false;
      snapHeld = true;
      return true;
    }),
  );

  const boxSelector = createBoxSelect({
    world,
    container: viewer.context.renderer.domElement.parentElement ?? viewer.context.renderer.domElement,
    canvas: viewer.context.renderer.domElement,
    camera: () => viewer.navigation.camera,
    pointer: viewer.pointer,
    armed: () => enabled && boxSelect,
    onSelect: (groupId, ids) => editor.selectInstances(groupId, ids),
    onEmpty: () => editor.select(null),
  });

  /** 'Conifers #12' or '240 Conifers'. */
  function describeInstances(groupId: string, ids: readonly number[]): string {
    const name = objects.get(groupId)?.data.name ?? groupId;
    return ids.length === 1 ? `${name} #${ids[0]}` : `${ids.length} ${name}`;
  }
  return editor;
}

const TEXTURE_MAPS = new Set<string>(TEXTURE_MAP_PROPERTIES);

/** Sends an upload's body; answers the status and the body's text. */
export type SendUpload = (url: string, body: Blob, headers: Record<string, string>, onProgress?: (fraction: number) => void) => Promise<{ status: number; text: string }>;

/** XMLHttpRequest, for its upload progress (fetch has none). A network failure rejects. */
const xhrUpload: SendUpload = (url, body, headers, onProgress) =>
  new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress?.(event.loaded / event.total);
    };
    xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText });
    xhr.onerror = () => reject(new Error(`The texture upload failed: the model service (${url}) could not be reached.`));
    xhr.onabort = () => reject(new Error('The texture upload was cancelled.'));
    xhr.send(body);
  });

/** The material values createMaterial copies (maps by their texture ids). */
const MATERIAL_VALUE_KEYS = Object.keys(MaterialPropertiesSchema.shape).filter((k) => k !== 'name');

/** A texture map's value as a mutation carries it: the texture's id in the model and its texture info. */
function textureInfoOf(record: ModelRecord, texture: Texture): TextureMap {
  // An uploaded texture may be drawn through its twin in the other colour space (mapTexture).
  let textureId = texture.userData.uploadedTextureId as string | undefined;
  for (const [id, t] of record.textures) if (t === texture) textureId = id;
  return {
    ...(textureId !== undefined ? { textureId } : {}),
    wrapS: texture.wrapS,
    wrapT: texture.wrapT,
    magFilter: texture.magFilter,
    minFilter: texture.minFilter,
    scale: [texture.repeat.x, texture.repeat.y],
    rotation: texture.rotation,
  } as TextureMap;
}

const dm = new Matrix4();
const dp = new Vector3();
const dq = new Quaternion();
const ds = new Vector3();

/** The earlier visit's queues first, then the current ones. */
function mergeSnapshots(a: QueueSnapshot, b: QueueSnapshot): QueueSnapshot {
  const out: QueueSnapshot = {};
  for (const [id, list] of Object.entries(a)) out[id] = [...list];
  for (const [id, list] of Object.entries(b)) out[id] = [...(out[id] ?? []), ...list];
  return out;
}

/** Read-only position, rotation (degrees, XYZ) and scale of a node, for the properties panel. */
export function nodeTransform(eid: number): { position: number[]; scale: number[]; quaternion: number[] } {
  return {
    position: Array.from(Transform.position.subarray(eid * 3, eid * 3 + 3)),
    quaternion: Array.from(Transform.rotation.subarray(eid * 4, eid * 4 + 4)),
    scale: Array.from(Transform.scale.subarray(eid * 3, eid * 3 + 3)),
  };
}
