import { useSnapshot } from 'valtio';
import { fieldsToMatrix, matrixToFields } from '../../editor/transform-fields';
import type { EditorUiState } from './editor-state';
import { TEXTURE_MAP_PROPERTIES } from '../../protocol/mutation';
import { InstancesPanel, ObjectPanel } from './object-panel';
import { TextureMaps } from './texture-maps';

/** The properties panel: the selected node and its material, or a scene object, or instances. */

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
  if (editor && selection?.instances)
    return <InstancesPanel state={state} groupId={selection.instances.groupId} ids={selection.instances.ids} name={selection.name} />;
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
    ? editor.readMaterial(modelId, materialId, [
        'name',
        ...MATERIAL_NUMBERS.map((n) => n[0]),
        ...MATERIAL_COLORS,
        'attenuationDistance',
        'normalScale',
        ...TEXTURE_MAP_PROPERTIES,
      ])
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
                    onBlur={(e) =>
                      Number(e.target.value) !== Number(trs[part][axis].toFixed(part === 'rotation' ? 2 : 4)) && setTrs(part, axis, Number(e.target.value))
                    }
                    onKeyDown={(e) => e.key === 'Enter' && (e.target as HTMLInputElement).blur()}
                  />
                ))}
              </div>
            ))}
          {(['visible', 'castShadow', 'receiveShadow'] as const).map((flag) => (
            <label className="row check" key={flag}>
              <input
                type="checkbox"
                checked={node[flag] ?? false}
                onChange={(e) => editor.setNode(modelId, nodeId, { [flag]: e.target.checked }, `${flag} of ${node.name}`)}
              />
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
                value={`#${Number((material as Record<string, unknown>)[c])
                  .toString(16)
                  .padStart(6, '0')}`}
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
                  if (value > 0 && value !== (material as Record<string, unknown>).attenuationDistance)
                    editor.setMaterial(modelId, materialId, { attenuationDistance: value }, 'Set attenuationDistance');
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
