import { useMemo, useState } from 'react';
import { useSnapshot } from 'valtio';
import type { Viewer } from '../../viewer/viewer';
import { degreesToQuaternion, degToRad, fieldsToMatrix, matrixToFields, quaternionToDegrees, radToDeg } from '../../editor/transform-fields';
import { formatKey, KEY_MAP, reservedByBrowser, type KeyAction } from '../../viewer/input/keymap';
import type { EditorUiState } from './editor-state';
import { createTreeCache, objectRows, outlinerView } from '../../editor/outline';
import { describeEdit } from '../../editor/saver';
import { LABELS, SCENE_OBJECT_TYPES, type SceneObject } from '../../protocol/scene-objects';
import { TEXTURE_MAP_PROPERTIES, type TextureMap } from '../../protocol/mutation';

/** Rows the outliner draws at most (the search narrows a large scene). */
const MAX_ROWS = 400;
const mac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
const key = (k: string) => formatKey(k, mac);
/** An action's keys from the key map, those a browser lets through first: 'T / Ctrl+T'. */
const keysOf = (action: KeyAction) => {
  const keys = KEY_MAP.find((b) => b.action === action)?.keys ?? [];
  return [...keys.filter((k) => !reservedByBrowser(k)), ...keys.filter(reservedByBrowser)].map(key).join(' / ');
};

export function Toolbar({ state }: { state: EditorUiState }) {
  const snap = useSnapshot(state);
  const editor = state.editor;
  const on = !!editor && snap.enabled;
  const mode = (m: 'translate' | 'rotate' | 'scale', label: string) => (
    <button type="button" aria-pressed={snap.gizmo.mode === m} disabled={!on} onClick={() => editor?.setGizmoMode(m)} title={`${label} (${keysOf(`${m}-mode`)})`}>
      {label}
    </button>
  );
  return (
    <header className="editor-toolbar" role="toolbar" aria-label="Editor">
      <a className="editor-home" href="/">
        Scenes
      </a>
      <div className="group">
        {mode('translate', 'Move')}
        {mode('rotate', 'Rotate')}
        {mode('scale', 'Scale')}
        <button type="button" disabled={!on} onClick={() => editor?.setGizmoSpace(snap.gizmo.space === 'world' ? 'local' : 'world')} title="Gizmo axes: world or the node's own">
          {snap.gizmo.space === 'world' ? 'World' : 'Local'}
        </button>
        <button type="button" aria-pressed={snap.boxSelect} disabled={!on} onClick={() => editor?.setBoxSelect(!snap.boxSelect)} title={`Box select instances: drag a rectangle in the view (${key('KeyB')})`} data-testid="box-select-toggle">
          Box select
        </button>
      </div>
      <div className="group">
        <button type="button" disabled={!on || !snap.history.canUndo} onClick={() => editor?.undo()} title={`Undo (${key('Mod+z')})`}>
          Undo
        </button>
        <button type="button" disabled={!on || !snap.history.canRedo} onClick={() => editor?.redo()} title={`Redo (${key('Mod+Shift+z')})`}>
          Redo
        </button>
        <button type="button" disabled={!on || snap.save.status === 'saving'} onClick={() => void editor?.save()} title={`Save (${key('Mod+s')})`} data-testid="save">
          Save
        </button>
      </div>
      <div className="group">
        <AddMenu state={state} disabled={!on} />
      </div>
      <label className="editor-enabled">
        <input type="checkbox" checked={snap.enabled} disabled={!editor} onChange={(e) => (e.target.checked ? editor?.enable() : editor?.disable())} /> Editing
      </label>
    </header>
  );
}

/** The toolbar's "Add…" menu: a light, camera or group, added at its default place and selected. */
function AddMenu({ state, disabled }: { state: EditorUiState; disabled: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="add-menu">
      <button type="button" disabled={disabled} aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="add-object">
        Add…
      </button>
      {open && !disabled && (
        <ul role="menu" className="menu" onMouseLeave={() => setOpen(false)}>
          {SCENE_OBJECT_TYPES.filter((type) => type !== 'InstancedAssetGroup').map((type) => (
            <li key={type} role="none">
              <button
                type="button"
                role="menuitem"
                data-testid={`add-${type}`}
                onClick={() => {
                  setOpen(false);
                  state.editor?.addObject(type);
                }}
              >
                {LABELS[type]}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Outliner({ state, world }: { state: EditorUiState; world: Viewer['world'] }) {
  const snap = useSnapshot(state);
  const [search, setSearch] = useState('');
  // The model tree is walked once per change of the scene's structure; names and visibility are
  // read for the drawn rows only, when they may have changed (outlineVersion: not at a material
  // slider's ticks).
  const tree = useMemo(() => createTreeCache(world), [world]);
  const outlineVersion = snap.outlineVersion;
  const objects = useMemo(() => objectRows(state.editor?.objects.list() ?? []), [state.editor, outlineVersion]);
  const { rows: shown, matching } = useMemo(() => outlinerView(world, tree.rows(), objects, search, MAX_ROWS), [world, tree, objects, search, outlineVersion]);
  const editor = state.editor;
  return (
    <section className="editor-panel outliner" aria-label="Outliner">
      <h2>Scene</h2>
      <input type="search" placeholder="Search by name" value={search} onChange={(e) => setSearch(e.target.value)} aria-label="Search nodes by name" />
      <ul role="tree" data-testid="outliner">
        {shown.map((row) => {
          const selected = row.objectId
            ? snap.selection?.objectId === row.objectId
            : snap.selection?.modelId === row.modelId && snap.selection?.nodeId === row.nodeId && row.nodeId !== null;
          return (
            <li key={row.key} role="treeitem" aria-selected={selected} className={`${row.kind}${selected ? ' selected' : ''}${row.visible ? '' : ' hidden'}`} style={{ paddingLeft: 6 + row.depth * 12 }}>
              <button
                type="button"
                className="name"
                onClick={() => (row.objectId ? editor?.selectObject(row.objectId) : row.nodeId && editor?.select(row.modelId, row.nodeId))}
                disabled={!row.nodeId && !row.objectId}
              >
                <span className="kind" aria-hidden="true">
                  {KIND_ICON[row.kind]}
                </span>
                {row.name}
              </button>
              {row.objectId && (
                <button
                  type="button"
                  className="eye"
                  aria-label={`${row.visible ? 'Hide' : 'Show'} ${row.name}`}
                  aria-pressed={!row.visible}
                  disabled={!snap.enabled}
                  onClick={() => editor?.setObject(row.objectId!, { visible: !row.visible }, `${row.visible ? 'Hide' : 'Show'} ${row.name}`)}
                >
                  {row.visible ? '●' : '○'}
                </button>
              )}
              {row.nodeId && (
                <button
                  type="button"
                  className="eye"
                  aria-label={`${row.visible ? 'Hide' : 'Show'} ${row.name}`}
                  aria-pressed={!row.visible}
                  disabled={!snap.enabled}
                  onClick={() => editor?.setNode(row.modelId, row.nodeId!, { visible: !row.visible }, `${row.visible ? 'Hide' : 'Show'} ${row.name}`)}
                >
                  {row.visible ? '●' : '○'}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {matching > shown.length && <p className="more">{matching - shown.length} more: narrow the search.</p>}
    </section>
  );
}

const KIND_ICON = { model: '▣', group: '◇', mesh: '△', light: '☀', camera: '⌖', objects: '✦' } as const;

const MATERIAL_NUMBERS: [string, number, number, number][] = [
  ['opacity', 0, 1, 0.01],
  ['metalness', 0, 1, 0.01],
  ['roughness', 0, 1, 0.01],
  ['transmission', 0, 1, 0.01],
  ['clearcoat', 0, 1, 0.01],
  ['sheen', 0, 1, 0.01],
  ['iridescence', 0, 1, 0.01],
  ['ior', 1, 2.333, 0.01],
  ['thickness', 0, 10, 0.01],
  ['emissiveIntensity', 0, 10, 0.1],
  ['dispersion', 0, 1, 0.01],
];
const MATERIAL_COLORS = ['color', 'emissive', 'attenuationColor'];

export function PropertiesPanel({ state }: { state: EditorUiState }) {
  const snap = useSnapshot(state);
  const editor = state.editor;
  const selection = snap.selection;
  // Re-read after every history change or scene change.
  void snap.history.steps.length;
  void snap.sceneVersion;
  if (editor && selection?.instances) return <InstancesPanel state={state} groupId={selection.instances.groupId} ids={selection.instances.ids} name={selection.name} />;
  if (editor && selection?.objectId) return <ObjectPanel state={state} uuid={selection.objectId} />;
  if (!editor || !selection) {
    return (
      <section className="editor-panel properties" aria-label="Properties">
        <h2>Properties</h2>
        <p className="empty">Click an object in the view or in the outliner.</p>
      </section>
    );
  }
  const { modelId, nodeId, materialId } = selection;
  const node = nodeId ? editor.readNode(modelId, nodeId, ['name', 'visible', 'castShadow', 'receiveShadow', 'matrix']) : null;
  const trs = node?.matrix ? matrixToFields(node.matrix) : null;
  const material = materialId
    ? editor.readMaterial(modelId, materialId, ['name', ...MATERIAL_NUMBERS.map((n) => n[0]), ...MATERIAL_COLORS, 'attenuationDistance', 'normalScale', ...TEXTURE_MAP_PROPERTIES])
    : null;
  const setTrs = (part: 'position' | 'rotation' | 'scale', axis: number, value: number) => {
    if (!trs || !nodeId || !Number.isFinite(value)) return;
    const next = { position: [...trs.position], rotation: [...trs.rotation], scale: [...trs.scale] };
    next[part][axis] = value;
    editor.setNode(modelId, nodeId, { matrix: fieldsToMatrix(next.position, next.rotation, next.scale) }, `Set ${part} of ${selection.name}`);
  };
  return (
    <section className="editor-panel properties" aria-label="Properties" key={`${modelId}/${nodeId}/${snap.history.steps.length}/${snap.sceneVersion}`}>
      <h2>Properties</h2>
      {node && nodeId && (
        <>
          <label className="row">
            Name
            <input
              type="text"
              defaultValue={node.name}
              aria-label="Name"
              onBlur={(e) => e.target.value !== node.name && editor.setNode(modelId, nodeId, { name: e.target.value }, `Rename ${node.name}`)}
              onKeyDown={(e) => e.key === 'Enter' && (e.target as HTMLInputElement).blur()}
            />
          </label>
          <div className="ids">
            node {nodeId} · model {modelId}
          </div>
          {trs &&
            (['position', 'rotation', 'scale'] as const).map((part) => (
              <div className="row vec" key={part}>
                <span>{part === 'position' ? 'Position (m)' : part === 'rotation' ? 'Rotation (°)' : 'Scale'}</span>
                {[0, 1, 2].map((axis) => (
                  <input
                    key={axis}
                    type="number"
                    step={part === 'rotation' ? 1 : 0.01}
                    aria-label={`${part} ${'XYZ'[axis]}`}
                    defaultValue={Number(trs[part][axis].toFixed(part === 'rotation' ? 2 : 4))}
                    onBlur={(e) => Number(e.target.value) !== Number(trs[part][axis].toFixed(part === 'rotation' ? 2 : 4)) && setTrs(part, axis, Number(e.target.value))}
                    onKeyDown={(e) => e.key === 'Enter' && (e.target as HTMLInputElement).blur()}
                  />
                ))}
              </div>
            ))}
          {(['visible', 'castShadow', 'receiveShadow'] as const).map((flag) => (
            <label className="row check" key={flag}>
              <input type="checkbox" checked={node[flag] ?? false} onChange={(e) => editor.setNode(modelId, nodeId, { [flag]: e.target.checked }, `${flag} of ${node.name}`)} />
              {flag === 'visible' ? 'Visible' : flag === 'castShadow' ? 'Casts shadows' : 'Receives shadows'}
            </label>
          ))}
        </>
      )}
      {material && materialId && (
        <div className="material" data-testid="material-panel">
          <h3>Material {String(material.name ?? materialId)}</h3>
          {nodeId && (
            <div className="row">
              <select
                aria-label="Material of the node"
                value={materialId}
                onChange={(e) => editor.setNode(modelId, nodeId, { material: e.target.value }, `Assign material to ${selection.name}`)}
              >
                {editor.listMaterials(modelId).map((m) => (
                  <option key={m.materialId} value={m.materialId}>
                    {m.name}
                  </option>
                ))}
              </select>
              <button
                type="button"
                data-testid="new-material"
                onClick={() => editor.createMaterial(modelId, { name: `${String(material.name || 'Material')} copy`, from: materialId, nodeId })}
                title="A copy of this material, assigned to this node only"
              >
                New material
              </button>
            </div>
          )}
          {MATERIAL_COLORS.filter((c) => (material as Record<string, unknown>)[c] !== undefined).map((c) => (
            <label className="row" key={c}>
              {c}
              <input
                type="color"
                aria-label={`Material ${c}`}
                value={`#${Number((material as Record<string, unknown>)[c]).toString(16).padStart(6, '0')}`}
                onChange={(e) => editor.setMaterial(modelId, materialId, { [c]: parseInt(e.target.value.slice(1), 16) }, `Set ${c}`)}
              />
            </label>
          ))}
          {MATERIAL_NUMBERS.filter(([n]) => typeof (material as Record<string, unknown>)[n] === 'number').map(([n, min, max, step]) => (
            <label className="row" key={n}>
              {n}
              <input
                type="range"
                min={min}
                max={max}
                step={step}
                aria-label={`Material ${n}`}
                value={Number((material as Record<string, unknown>)[n])}
                onChange={(e) => editor.setMaterial(modelId, materialId, { [n]: Number(e.target.value) }, `Set ${n}`)}
              />
              <output>{Number((material as Record<string, unknown>)[n]).toFixed(2)}</output>
            </label>
          ))}
          {typeof (material as Record<string, unknown>).attenuationDistance === 'number' && (
            <label className="row">
              attenuationDistance
              <input
                type="number"
                min={0}
                step={0.1}
                aria-label="Material attenuationDistance"
                defaultValue={Number((material as Record<string, unknown>).attenuationDistance)}
                onBlur={(e) => {
                  const value = Number(e.target.value);
                  if (value > 0 && value !== (material as Record<string, unknown>).attenuationDistance) editor.setMaterial(modelId, materialId, { attenuationDistance: value }, 'Set attenuationDistance');
                }}
              />
            </label>
          )}
          {Array.isArray(material.normalScale) && (
            <div className="row vec">
              <span>normalScale</span>
              {[0, 1].map((axis) => (
                <input
                  key={axis}
                  type="number"
                  step={0.05}
                  aria-label={`Material normalScale ${'XY'[axis]}`}
                  defaultValue={material.normalScale![axis]}
                  onBlur={(e) => {
                    const value = Number(e.target.value);
                    if (!Number.isFinite(value) || value === material.normalScale![axis]) return;
                    const next = [...material.normalScale!] as [number, number];
                    next[axis] = value;
                    editor.setMaterial(modelId, materialId, { normalScale: next }, 'Set normalScale');
                  }}
                />
              ))}
            </div>
          )}
          <TextureMaps state={state} modelId={modelId} materialId={materialId} material={material as Record<string, unknown>} />
        </div>
      )}
    </section>
  );
}

const WRAPS: [number, string][] = [
  [1000, 'Repeat'],
  [1001, 'Clamp to edge'],
  [1002, 'Mirrored repeat'],
];
const MAGS: [number, string][] = [
  [1003, 'Nearest'],
  [1006, 'Linear'],
];
const MINS: [number, string][] = [
  [1003, 'Nearest'],
  [1004, 'Nearest, nearest mipmap'],
  [1005, 'Nearest, linear mipmap'],
  [1006, 'Linear'],
  [1007, 'Linear, nearest mipmap'],
  [1008, 'Linear, linear mipmap'],
];

/** The material's texture maps with their texture info (wrapping, filters, scale, rotation), and adding one. */
function TextureMaps({ state, modelId, materialId, material }: { state: EditorUiState; modelId: string; materialId: string; material: Record<string, unknown> }) {
  const editor = state.editor!;
  const [slot, setSlot] = useState('');
  const textures = editor.listTextures(modelId);
  const slots = TEXTURE_MAP_PROPERTIES.filter((k) => k in material);
  const used = slots.filter((k) => material[k] !== null);
  const free = slots.filter((k) => material[k] === null);
  const set = (key: string, map: TextureMap, label: string) => editor.setMaterial(modelId, materialId, { [key]: map }, label);
  const select = (key: string, map: Exclude<TextureMap, null>, field: 'wrapS' | 'wrapT' | 'magFilter' | 'minFilter', options: [number, string][]) => (
    <label className="row" key={field}>
      {field}
      <select aria-label={`${key} ${field}`} value={Number(map[field])} onChange={(e) => set(key, { ...map, [field]: Number(e.target.value) }, `Set ${key} ${field}`)}>
        {options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div className="maps" data-testid="texture-maps">
      <h3>Texture maps</h3>
      {used.length === 0 && <p className="empty">No texture maps.</p>}
      {used.map((key) => {
        const map = material[key] as Exclude<TextureMap, null>;
        const scale = Array.isArray(map.scale) ? map.scale : [map.scale ?? 1, map.scale ?? 1];
        return (
          <div className="map" key={key} data-map={key}>
            <div className="row">
              <strong>{key}</strong>
              {map.textureId !== undefined && textures.length > 1 && (
                <select aria-label={`${key} texture`} value={map.textureId} onChange={(e) => set(key, { ...map, textureId: e.target.value }, `Set ${key} texture`)}>
                  {textures.map((id) => (
                    <option key={id} value={id}>
                      texture {id}
                    </option>
                  ))}
                </select>
              )}
              <button type="button" aria-label={`Remove ${key}`} onClick={() => set(key, null, `Remove ${key}`)}>
                Remove
              </button>
            </div>
            <TextureUpload state={state} modelId={modelId} mapKey={key} onUploaded={(textureId) => set(key, { ...map, textureId }, `Upload ${key} texture`)} />
            {select(key, map, 'wrapS', WRAPS)}
            {select(key, map, 'wrapT', WRAPS)}
            {select(key, map, 'magFilter', MAGS)}
            {select(key, map, 'minFilter', MINS)}
            <div className="row vec">
              <span>scale</span>
              {[0, 1].map((axis) => (
                <input
                  key={axis}
                  type="number"
                  step={0.1}
                  aria-label={`${key} scale ${'UV'[axis]}`}
                  defaultValue={scale[axis]}
                  onBlur={(e) => {
                    const value = Number(e.target.value);
                    if (!Number.isFinite(value) || value === scale[axis]) return;
                    const next = [scale[0], scale[1]] as [number, number];
                    next[axis] = value;
                    set(key, { ...map, scale: next }, `Set ${key} scale`);
                  }}
                />
              ))}
            </div>
            <label className="row">
              rotation (°)
              <input
                type="number"
                step={1}
                aria-label={`${key} rotation`}
                defaultValue={Number(radToDeg(map.rotation ?? 0).toFixed(2))}
                onBlur={(e) => {
                  const value = degToRad(Number(e.target.value));
                  if (Number.isFinite(value) && Math.abs(value - (map.rotation ?? 0)) > 1e-6) set(key, { ...map, rotation: value }, `Set ${key} rotation`);
                }}
              />
            </label>
          </div>
        );
      })}
      {free.length > 0 && (
        <div className="row">
          <select aria-label="Map to add" value={slot} onChange={(e) => setSlot(e.target.value)}>
            <option value="">Add a map…</option>
            {free.map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
          {textures.length > 0 && (
            <button type="button" disabled={!slot} onClick={() => slot && set(slot, { textureId: textures[0] }, `Add ${slot}`)}>
              Add texture {textures[0]}
            </button>
          )}
        </div>
      )}
      {free.length > 0 && slot && free.includes(slot as (typeof free)[number]) && (
        <TextureUpload state={state} modelId={modelId} mapKey={slot} onUploaded={(textureId) => set(slot, { textureId }, `Upload ${slot} texture`)} />
      )}
    </div>
  );
}

/**
 * "Upload image…" of a texture map: a PNG, JPEG or WebP file is uploaded to the model service as a
 * texture of the model (editor.uploadTexture), then set as the map's texture (one undoable step).
 * Progress and refusals are shown here; nothing changes when the upload fails.
 */
function TextureUpload({ state, modelId, mapKey, onUploaded }: { state: EditorUiState; modelId: string; mapKey: string; onUploaded: (textureId: string) => void }) {
  const editor = state.editor!;
  const [status, setStatus] = useState<{ progress: number } | { error: string } | null>(null);
  const busy = status !== null && 'progress' in status;
  const upload = async (file: File) => {
    setStatus({ progress: 0 });
    try {
      const textureId = await editor.uploadTexture(modelId, file, { onProgress: (progress) => setStatus({ progress }) });
      setStatus(null);
      onUploaded(textureId);
    } catch (error) {
      setStatus({ error: `${file.name}: ${error instanceof Error ? error.message : String(error)}` });
    }
  };
  return (
    <div className="row upload" data-testid={`upload-${mapKey}`}>
      <label className={busy ? 'button disabled' : 'button'}>
        Upload image…
        <input
          type="file"
          accept="image/png,image/jpeg,image/webp"
          aria-label={`Upload ${mapKey} image`}
          disabled={busy}
          style={{ display: 'none' }}
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) void upload(file);
          }}
        />
      </label>
      {status && 'progress' in status && (
        <span role="status">
          Uploading… <progress max={1} value={status.progress} /> {Math.round(status.progress * 100)}%
        </span>
      )}
      {status && 'error' in status && (
        <span role="alert" className="error">
          {status.error}
        </span>
      )}
    </div>
  );
}

/** Number fields of scene objects: [field, label, min, max, step]. */
const OBJECT_NUMBERS: [keyof SceneObject, string, number, number, number][] = [
  ['intensity', 'Intensity', 0, 100, 0.1],
  ['distance', 'Distance (0: unlimited)', 0, 1000, 0.1],
  ['decay', 'Decay', 0, 4, 0.1],
  ['angle', 'Angle (rad)', 0.01, Math.PI / 2, 0.01],
  ['penumbra', 'Penumbra', 0, 1, 0.01],
  ['width', 'Width', 0, 100, 0.1],
  ['height', 'Height', 0, 100, 0.1],
  ['fov', 'Field of view (°)', 1, 179, 1],
  ['near', 'Near', 0.001, 100, 0.01],
  ['far', 'Far', 1, 100000, 1],
];

/** The properties of a light, camera or group: name, parent, transform, visibility, shadows and its own fields. */
function ObjectPanel({ state, uuid }: { state: EditorUiState; uuid: string }) {
  const snap = useSnapshot(state);
  const editor = state.editor!;
  const data = editor.readObject(uuid);
  if (!data) return null;
  const rotation = quaternionToDegrees(data.quaternion);
  const set = (fields: Partial<SceneObject>, label: string) => editor.setObject(uuid, fields, `${label} of ${data.name}`);
  const setVec = (part: 'position' | 'rotation' | 'scale', axis: number, value: number) => {
    if (!Number.isFinite(value)) return;
    if (part === 'rotation') {
      const r = [...rotation];
      r[axis] = value;
      set({ quaternion: degreesToQuaternion(r) }, 'Rotation');
    } else {
      const v = [...data[part]] as [number, number, number];
      v[axis] = value;
      set({ [part]: v }, part === 'position' ? 'Position' : 'Scale');
    }
  };
  const vectors = { position: data.position, rotation, scale: data.scale };
  // Parents: groups (and other objects) that are not this one or under it.
  const descendants = new Set<string>([uuid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const o of editor.objects.list()) {
      if (o.parent && descendants.has(o.parent) && !descendants.has(o.uuid)) {
        descendants.add(o.uuid);
        grew = true;
      }
    }
  }
  const parents = editor.objects.list().filter((o) => !descendants.has(o.uuid));
  const record = data as Record<string, unknown>;
  return (
    <section className="editor-panel properties" aria-label="Properties" data-testid="object-panel" key={`${uuid}/${snap.history.steps.length}/${snap.sceneVersion}`}>
      <h2>Properties</h2>
      <label className="row">
        Name
        <input
          type="text"
          defaultValue={data.name}
          aria-label="Name"
          onBlur={(e) => e.target.value !== data.name && set({ name: e.target.value }, 'Name')}
          onKeyDown={(e) => e.key === 'Enter' && (e.target as HTMLInputElement).blur()}
        />
      </label>
      <div className="ids">
        {LABELS[data.type]} · {uuid}
      </div>
      <label className="row">
        Parent
        <select aria-label="Parent" value={data.parent ?? ''} onChange={(e) => set({ parent: e.target.value || null }, 'Parent')}>
          <option value="">(scene)</option>
          {parents.map((o) => (
            <option key={o.uuid} value={o.uuid}>
              {o.name}
            </option>
          ))}
        </select>
      </label>
      {data.type !== 'AmbientLight' &&
        (['position', 'rotation', 'scale'] as const).map((part) => (
          <div className="row vec" key={part}>
            <span>{part === 'position' ? 'Position (m)' : part === 'rotation' ? 'Rotation (°)' : 'Scale'}</span>
            {[0, 1, 2].map((axis) => {
              const shown = Number(vectors[part][axis].toFixed(part === 'rotation' ? 2 : 4));
              return (
                <input
                  key={axis}
                  type="number"
                  step={part === 'rotation' ? 1 : 0.01}
                  aria-label={`${part} ${'XYZ'[axis]}`}
                  defaultValue={shown}
                  onBlur={(e) => Number(e.target.value) !== shown && setVec(part, axis, Number(e.target.value))}
                  onKeyDown={(e) => e.key === 'Enter' && (e.target as HTMLInputElement).blur()}
                />
              );
            })}
          </div>
        ))}
      <label className="row check">
        <input type="checkbox" checked={data.visible} onChange={(e) => set({ visible: e.target.checked }, 'Visible')} />
        Visible
      </label>
      {data.castShadow !== undefined && (
        <label className="row check">
          <input type="checkbox" aria-label="Casts shadows" checked={data.castShadow} onChange={(e) => set({ castShadow: e.target.checked }, 'Shadows')} />
          Casts shadows
        </label>
      )}
      {(['color', 'groundColor'] as const)
        .filter((c) => data[c] !== undefined)
        .map((c) => (
          <label className="row" key={c}>
            {c === 'color' ? (data.type === 'HemisphereLight' ? 'Sky colour' : 'Colour') : 'Ground colour'}
            <input type="color" aria-label={c} value={`#${data[c]!.toString(16).padStart(6, '0')}`} onChange={(e) => set({ [c]: parseInt(e.target.value.slice(1), 16) }, c === 'color' ? 'Colour' : 'Ground colour')} />
          </label>
        ))}
      {OBJECT_NUMBERS.filter(([field]) => typeof record[field] === 'number').map(([field, label, min, max, step]) => (
        <label className="row" key={field}>
          {label}
          <input
            type="number"
            min={min}
            max={max}
            step={step}
            aria-label={label}
            defaultValue={Number(record[field])}
            onBlur={(e) => {
              const value = Number(e.target.value);
              if (Number.isFinite(value) && value !== record[field] && value >= min && value <= max) set({ [field]: value }, label);
            }}
            onKeyDown={(e) => e.key === 'Enter' && (e.target as HTMLInputElement).blur()}
          />
        </label>
      ))}
      <button type="button" className="danger" onClick={() => editor.removeObject(uuid)} data-testid="remove-object">
        Remove {data.name}
      </button>
    </section>
  );
}

/** Selected instances of an instanced asset group: what they are, and copy, delete, select the group. */
function InstancesPanel({ state, groupId, ids, name }: { state: EditorUiState; groupId: string; ids: readonly number[]; name: string }) {
  const editor = state.editor!;
  const group = editor.readObject(groupId);
  return (
    <section className="editor-panel properties" aria-label="Properties" data-testid="instances-panel">
      <h2>Properties</h2>
      <p data-testid="instances-selected">{name}</p>
      <div className="ids">
        {ids.length === 1 ? `Instance ${ids[0]}` : `${ids.length} instances`} of {group?.name ?? groupId} · asset {group?.assetId ?? '?'}
      </div>
      <p className="hint">Drag the gizmo to move, turn or scale {ids.length === 1 ? 'it' : 'them together'}.</p>
      <div className="row">
        <button type="button" onClick={() => editor.copySelection()} title={`Copy beside (${key('Mod+c')})`} data-testid="copy-instances">
          Copy
        </button>
        <button type="button" className="danger" onClick={() => editor.deleteSelection()} title={`Delete (${key('Delete')})`} data-testid="delete-instances">
          Delete
        </button>
        <button type="button" onClick={() => editor.selectObject(groupId)}>
          Select the group
        </button>
      </div>
    </section>
  );
}

export function HistoryPanel({ state }: { state: EditorUiState }) {
  const snap = useSnapshot(state);
  return (
    <section className="editor-panel history" aria-label="History">
      <h2>History</h2>
      <ol data-testid="history">
        <li className={snap.history.steps.some((s) => s.done) ? '' : 'current'}>
          <button type="button" onClick={() => state.editor?.history.jumpTo(0)} disabled={!snap.enabled}>
            Opened
          </button>
        </li>
        {snap.history.steps.map((step) => (
          <li key={step.id} className={step.done ? 'done' : 'undone'}>
            <button type="button" onClick={() => state.editor?.history.jumpTo(step.id)} disabled={!snap.enabled}>
              {step.name}
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}

const STATUS_TEXT = { saved: 'All changes saved', unsaved: 'Unsaved changes', saving: 'Saving…', failed: 'Not saved' } as const;

export function StatusBar({ state, sceneId }: { state: EditorUiState; sceneId: string }) {
  const snap = useSnapshot(state);
  const save = snap.save;
  return (
    <footer className={`editor-status ${save.status}`} role="status" aria-live="polite">
      <span data-testid="save-status" data-status={save.status}>
        {STATUS_TEXT[save.status]}
        {save.pending > 0 && save.status !== 'saved' ? ` (${save.pending} edit${save.pending === 1 ? '' : 's'})` : ''}
      </span>
      {save.reason && <span className="reason" data-testid="save-reason">{save.reason}</span>}
      {save.signIn && (
        <a href={`/auth/sign-in?returnTo=${encodeURIComponent(`/edit/${sceneId}`)}`} target="_blank" rel="opener">
          Sign in again
        </a>
      )}
      {save.rejected.length > 0 && (
        <details className="rejected">
          <summary>{save.rejected.length} edit(s) refused by the server</summary>
          <ul>
            {save.rejected.map((r) => (
              <li key={r.mutation.uuid}>
                {describeEdit(r.mutation)}: {r.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      <span className="spacer" />
      <a href={`/embed/${encodeURIComponent(sceneId)}`} target="_blank" rel="noopener">
        Open in the viewer
      </a>
    </footer>
  );
}
