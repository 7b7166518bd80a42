import { useSnapshot } from 'valtio';
import { degreesToQuaternion, quaternionToDegrees } from '../../editor/transform-fields';
import type { EditorUiState } from './editor-state';
import { LABELS, type SceneObject } from '../../protocol/scene-objects';
import { key } from './shortcut-labels';

/** The properties of a scene object (light, camera, group) and of selected instances. */

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
export function ObjectPanel({ state, uuid }: { state: EditorUiState; uuid: string }) {
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
  for (let grew = true; grew;) {
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
    <section
      className="editor-panel properties"
      aria-label="Properties"
      data-testid="object-panel"
      key={`${uuid}/${snap.history.steps.length}/${snap.sceneVersion}`}
    >
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
            <input
              type="color"
              aria-label={c}
              value={`#${data[c]!.toString(16).padStart(6, '0')}`}
              onChange={(e) => set({ [c]: parseInt(e.target.value.slice(1), 16) }, c === 'color' ? 'Colour' : 'Ground colour')}
            />
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
export function InstancesPanel({ state, groupId, ids, name }: { state: EditorUiState; groupId: string; ids: readonly number[]; name: string }) {
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
