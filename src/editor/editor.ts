import { Vector3 } from 'three';
import { Transform } from '../../components';
import { ERR_EDITOR_NOT_IMPLEMENTED } from '../protocol/editor';
import type { MaterialProperties, NodeProperties } from '../protocol/mutation';
import type { DecodeImage } from '../scene/uploaded-textures';
import { fetchEnvironmentCatalog } from '../scene/environments';
import type { EnvironmentCatalog } from '../protocol/environment';
import { viewEye, viewFocus } from '../engine/view-pose';
import type { SceneObject, SceneObjectType } from '../protocol/scene-objects';
import type { SceneSettingsInput, SceneSettingsValues } from '../protocol/scene-settings';
import { Emitter } from '../viewer/events';
import { readSceneSettings } from '../viewer/scene-settings';
import { sceneObjectsOf, type SceneObjects } from '../viewer/scene-objects';
import { attachObjectHelpers } from './helpers';
import type { Viewer } from '../viewer/viewer';
import { SetNodeCommand } from './commands';
import { createNodeGizmo, type GizmoMode, type GizmoSpace, type NodeGizmo } from './gizmo';
import { History, type HistoryStep } from './history';
import { MutationQueues, propertiesProblem } from './mutation-queue';
import type { StoredQueue } from './persist';
import { createServiceClient } from '../service/client';
import { createSaver, type QueueStore, type SaveState, type Saver } from './saver';
import { createBoxSelect, createInstanceApplier } from './instance-editing';
import { createInstanceActions } from './instance-actions';
import { createMaterialEditing } from './material-editing';
import { createSelectionOutline } from './selection-outline';
import type { InstanceAsset } from '../engine/instances';
import { bindEditorInput } from './editor-input';
import { createModelEdits, nodeDragStep, recordOf } from './model-edits';
import { readMaterialProperties, readNodeProperties } from './read-properties';
import { createUnsaved } from './restore-unsaved';
import { createSceneObjectEditing } from './scene-object-editing';
import { createSelecting } from './selection';
import { createSettingsEditing } from './settings-editing';
import { uploadTexture, type SendUpload } from './texture-upload';

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
 * click (the viewer's 'hit' / 'background-hit', selection.ts); the transform gizmo for nodes;
 * commands and history keyed by stable ids; every change applied live through the same code that
 * replays the saved log (src/scene/apply-mutations.ts) and queued as a mutation (model-edits.ts,
 * scene-object-editing.ts, settings-editing.ts, instance-editing.ts); saving; the shortcuts of the
 * key map's editor context (editor-input.ts).
 */
export function createEditor(viewer: Viewer, options: EditorOptions): Editor {
  const world = viewer.world;
  const events = new Emitter<EditorEventMap>();
  const queues = new MutationQueues();
  const history = new History({ clock: options.clock });
  /** Enabled or not, and what is selected: read and written by the editor's parts. */
  const state = { enabled: false, selection: null as Selection | null };
  const offs: (() => void)[] = [];
  const notice = (text: string) => events.emit('notice', { text });
  const record = (modelId: string) => recordOf(world, modelId);

  const applier = createModelEdits(world, queues, events, state);
  const objects = sceneObjectsOf(world, viewer.context.scene);
  const helpers = attachObjectHelpers(world, viewer.context.scene, objects, false);
  // The selection's outline, drawn over every picture on every tier.
  const outline = createSelectionOutline(world);

  // Instances of instanced asset groups: live in the engine, queued as instance changes.
  const instanceApplier = createInstanceApplier(world, queues, (groupId, removed) => {
    if (removed) selecting.instancesRemoved(groupId, removed);
    events.emit('scene', { outline: false });
  });
  let boxSelect = false;
  /** The key map's snapping key (gizmo-snap) is held. */
  const snap = { held: false };

  const sceneObjects = createSceneObjectEditing({
    world,
    objects,
    queues,
    history,
    notice,
    removing: (uuid) => {
      if (state.selection?.objectId === uuid) editor.select(null);
    },
    changed: (uuid, data) => {
      if (state.selection?.objectId === uuid && data) {
        state.selection = { ...state.selection, name: data.name };
        events.emit('selection', state.selection);
      }
      events.emit('scene', { outline: true });
    },
  });
  const settings = createSettingsEditing(viewer, queues, history, events, options.sceneSettings ?? {});

  // The queue is kept with any edits left from an earlier visit until the person answers the offer.
  // (The options give the queue offered back, the store, and where uploaded textures load from.)
  const unsaved = createUnsaved({
    ...options,
    world,
    queues,
    objects,
    notice,
    restoreSettings: settings.restore,
    restored: () => events.emit('scene', { outline: true }),
  });
  // The model service's one client: the saves (which retry on their own: no retries here) and the texture uploads.
  const service = createServiceClient({ baseUrl: options.modelService, token: options.getToken, fetch: options.fetch, retries: 0 });
  const saver = createSaver({
    queues,
    modelService: options.modelService,
    sceneId: options.sceneId,
    getToken: options.getToken,
    enabled: () => state.enabled,
    service,
    store: unsaved.store,
    onState: (save) => events.emit('save', save),
    onEvent: (event) => events.emit(event, undefined),
  });

  offs.push(history.onChange(() => events.emit('history', { steps: history.steps(), canUndo: history.canUndo, canRedo: history.canRedo })));

  const gizmo = createNodeGizmo({
    world,
    scene: viewer.context.scene,
    canvas: viewer.context.renderer.domElement,
    pointer: viewer.pointer,
    camera: () => viewer.navigation.camera,
    snap: () => snap.held,
    enabled: () => state.enabled,
    // The drag already moved them; executing writes the same matrices (or matrix) and queues the change.
    onInstancesDragEnd: (target, before, after) => instanceActions.dragged(target.groupId, target.ids, before, after, verb()),
    onDragEnd(eid, before, after) {
      const objectId = objects.uuidOf(eid);
      if (objectId) return sceneObjects.dragged(objectId, before, after, verb());
      const step = nodeDragStep(world, applier, eid, before, after, verb());
      if (step) history.execute(step);
    },
  });
  const verb = () => (gizmo.mode === 'translate' ? 'Move' : gizmo.mode === 'rotate' ? 'Rotate' : 'Scale');
  const selecting = createSelecting({ world, objects, helpers, gizmo, outline, events, state });
  const materials = createMaterialEditing({
    world,
    history,
    applier,
    modelService: options.modelService,
    decodeImage: options.decodeImage,
    enabled: () => state.enabled,
    notice,
  });
  const instanceActions = createInstanceActions({
    world,
    objects,
    history,
    instances: instanceApplier,
    sceneObjects,
    describeInstances: selecting.describeInstances,
    loadAsset: options.loadAsset,
    notice,
  });

  const editor: Editor = {
    events,
    get enabled() {
      return state.enabled;
    },
    enable() {
      if (state.enabled) return;
      state.enabled = true;
      helpers.setShown(true);
      viewer.navigation.setCameraConfig('editor');
      events.emit('enabled', { enabled: true });
    },
    disable() {
      if (!state.enabled) return;
      editor.select(null);
      state.enabled = false;
      helpers.setShown(false);
      viewer.navigation.setCameraConfig('simple');
      events.emit('enabled', { enabled: false });
    },
    get selection() {
      return state.selection;
    },
    select: selecting.select,
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
      if (!state.enabled) throw new Error('The editor is disabled: enable it to add objects.');
      const uuid = sceneObjects.add(type, fields);
      editor.selectObject(uuid);
      return uuid;
    },
    setObject(uuid, fields, name) {
      if (state.enabled) sceneObjects.set(uuid, fields, name);
    },
    removeObject(uuid) {
      if (state.enabled) sceneObjects.remove(uuid);
    },
    setSettings(fields, name) {
      if (state.enabled) settings.set(fields, name);
    },
    readSettings() {
      return readSceneSettings(viewer);
    },
    environments() {
      return fetchEnvironmentCatalog();
    },
    currentView() {
      // The view pose where the last move ends (world.view), as the host API's camera reads it.
      const position = world.view.version > 0 ? world.view.positionEnd : (viewEye(world) ?? new Vector3());
      const target = viewFocus(world, new Vector3());
      return { position: { x: position.x, y: position.y, z: position.z }, target: { x: target.x, y: target.y, z: target.z } };
    },
    readObject(uuid) {
      return objects.get(uuid)?.data ?? null;
    },
    selectObject: selecting.selectObject,
    selectInstances: selecting.selectInstances,
    async placeAsset(assetId, name) {
      if (!state.enabled) throw new Error('The editor is disabled: enable it to place assets.');
      const placed = await instanceActions.place(assetId, name);
      if (placed) editor.selectInstances(placed.groupId, placed.ids);
    },
    get boxSelect() {
      return boxSelect;
    },
    setBoxSelect(on) {
      if (boxSelect === on) return;
      boxSelect = on && state.enabled;
      events.emit('box-select', { on: boxSelect });
    },
    undo() {
      if (state.enabled) history.undo();
    },
    redo() {
      if (state.enabled) history.redo();
    },
    save() {
      return saver.save();
    },
    setNode(modelId, nodeId, properties, name) {
      if (!state.enabled) return;
      const problem = propertiesProblem('node', properties as Record<string, unknown>);
      if (problem) return notice(`The edit was not made: ${problem}`);
      const keys = Object.keys(properties) as (keyof NodeProperties)[];
      const before = editor.readNode(modelId, nodeId, keys);
      history.execute(new SetNodeCommand(applier, modelId, nodeId, before, properties, { name }));
    },
    setMaterial(modelId, materialId, properties, name) {
      if (state.enabled) materials.set(modelId, materialId, properties, name);
    },
    async uploadTexture(modelId, file, { onProgress } = {}) {
      const upload = { service, getToken: options.getToken, sendUpload: options.sendUpload, decodeImage: options.decodeImage };
      return uploadTexture(upload, record(modelId), modelId, file, onProgress);
    },
    createMaterial(modelId, options) {
      if (!state.enabled) throw new Error('The editor is disabled: enable it to create materials.');
      return materials.create(modelId, options);
    },
    listMaterials(modelId) {
      return [...record(modelId).materials.entries()].map(([materialId, material]) => ({ materialId, name: material.name || materialId }));
    },
    listTextures(modelId) {
      return [...record(modelId).textures.keys()];
    },
    readNode(modelId, nodeId, keys) {
      return readNodeProperties(world, record(modelId), nodeId, keys);
    },
    readMaterial(modelId, materialId, keys) {
      return readMaterialProperties(record(modelId), materialId, keys);
    },
    deleteSelection() {
      const selection = state.selection;
      if (state.enabled && selection?.instances) {
        const removal = instanceActions.removal(selection.instances.groupId, selection.instances.ids);
        editor.select(null);
        history.execute(removal);
        return;
      }
      if (state.enabled && selection?.objectId) {
        editor.removeObject(selection.objectId);
        return;
      }
      if (!state.enabled || !selection?.nodeId) return;
      const { modelId, nodeId, name } = selection;
      editor.setNode(modelId, nodeId, { visible: false }, `Hide ${name}`);
      editor.select(null);
    },
    copySelection() {
      const selection = state.selection;
      if (!state.enabled || !selection) return;
      if (!selection.instances) return notice(ERR_EDITOR_NOT_IMPLEMENTED);
      const { groupId, ids } = selection.instances;
      editor.selectInstances(groupId, instanceActions.copy(groupId, ids));
    },
    get restorable() {
      return unsaved.offered;
    },
    restoreUnsaved: () => unsaved.restore(),
    discardUnsaved: () => unsaved.discard(),
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

  offs.push(selecting.dispose, ...bindEditorInput(viewer, editor, snap));

  const boxSelector = createBoxSelect({
    world,
    container: viewer.context.renderer.domElement.parentElement ?? viewer.context.renderer.domElement,
    canvas: viewer.context.renderer.domElement,
    camera: () => viewer.navigation.camera,
    pointer: viewer.pointer,
    armed: () => state.enabled && boxSelect,
    onSelect: (groupId, ids) => editor.selectInstances(groupId, ids),
    onEmpty: () => editor.select(null),
  });
  return editor;
}

export type { SendUpload } from './texture-upload';

/** Read-only position, rotation (degrees, XYZ) and scale of a node, for the properties panel. */
export function nodeTransform(eid: number): { position: number[]; scale: number[]; quaternion: number[] } {
  return {
    position: Array.from(Transform.position.subarray(eid * 3, eid * 3 + 3)),
    quaternion: Array.from(Transform.rotation.subarray(eid * 4, eid * 4 + 4)),
    scale: Array.from(Transform.scale.subarray(eid * 3, eid * 3 + 3)),
  };
}
