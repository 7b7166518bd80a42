import { useState } from 'react';
import { degToRad, radToDeg } from '../../editor/transform-fields';
import type { EditorUiState } from './editor-state';
import { TEXTURE_MAP_PROPERTIES, type TextureMap } from '../../protocol/mutation';

/** A material's texture maps in the properties panel: their texture info, adding one, uploading an image. */

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
export function TextureMaps({
  state,
  modelId,
  materialId,
  material,
}: {
  state: EditorUiState;
  modelId: string;
  materialId: string;
  material: Record<string, unknown>;
}) {
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
      <select
        aria-label={`${key} ${field}`}
        value={Number(map[field])}
        onChange={(e) => set(key, { ...map, [field]: Number(e.target.value) }, `Set ${key} ${field}`)}
      >
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
                <select
                  aria-label={`${key} texture`}
                  value={map.textureId}
                  onChange={(e) => set(key, { ...map, textureId: e.target.value }, `Set ${key} texture`)}
                >
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
function TextureUpload({
  state,
  modelId,
  mapKey,
  onUploaded,
}: {
  state: EditorUiState;
  modelId: string;
  mapKey: string;
  onUploaded: (textureId: string) => void;
}) {
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
