import { useEffect, useState } from 'react';
import { useSnapshot } from 'valtio';
import type { EnvironmentCatalog } from '../../protocol/environment';
import { environmentUrl } from '../../protocol/environment';
import { BackgroundType, TONE_MAPPINGS, type SceneSettingsInput, type SceneSettingsValues } from '../../protocol/scene-settings';
import type { EditorUiState } from './editor-state';

type Key = keyof SceneSettingsValues;
type NumberField = [Key, string, number, number, number];

/** The number fields of each part: [field, label, min, max, step]. */
const SUN: NumberField[] = [
  ['sunAzimuth', 'Azimuth (°)', 0, 360, 1],
  ['sunElevation', 'Elevation (°)', -90, 90, 1],
  ['directionalLightIntensity', 'Intensity', 0, 10, 0.05],
  ['directionalLightShadowCameraBias', 'Shadow bias', -0.01, 0.01, 0.0001],
  ['directionalLightShadowCameraScale', 'Shadow extent (m)', 1, 1000, 1],
  ['ambientLightIntensity', 'Ambient intensity', 0, 5, 0.05],
];
const BACKGROUND: NumberField[] = [
  ['backgroundRotation', 'Gradient rotation (°)', -360, 360, 1],
  ['backgroundBlurriness', 'Blurriness', 0, 1, 0.01],
];
const RENDER: NumberField[] = [
  ['toneMappingExposure', 'Exposure (2^x)', -5, 5, 0.05],
  ['perspectiveCameraFov', 'Camera field of view (°)', 5, 120, 1],
];
const FOG: NumberField[] = [['fogDensity', 'Density', 0, 0.1, 0.0005]];
const WATER: NumberField[] = [
  ['waterDistortionScale', 'Distortion', 0, 20, 0.1],
  ['waterSize', 'Wave size', 0.1, 10, 0.1],
  ['waterYOffset', 'Height (m)', -100, 100, 0.1],
  ['waterWaveSpeed', 'Wave speed', 0, 10, 0.1],
];
const SHADOW_PLANE: NumberField[] = [
  ['shadowPlaneY', 'Height (m)', -100, 100, 0.01],
  ['shadowPlaneOpacity', 'Opacity', 0, 1, 0.01],
];

/**
 * Scene settings (editor specification section 3): sun, background, environment from the
 * catalogue, tone mapping and exposure, camera, fog, water, shadow plane. Every change is one
 * undoable step (a slider's changes within 500 ms merge) applied for the changed fields only, and
 * saved with the scene.
 */
export function ScenePanel({ state }: { state: EditorUiState }) {
  const snap = useSnapshot(state);
  const editor = state.editor;
  const [catalog, setCatalog] = useState<EnvironmentCatalog | null>(null);
  const [catalogError, setCatalogError] = useState<string | null>(null);
  useEffect(() => {
    if (!editor) return;
    editor.environments().then(setCatalog, (error) => setCatalogError((error as Error).message));
  }, [editor]);
  if (!editor) return null;
  void snap.settingsVersion;
  void snap.history.steps.length;
  const v = editor.readSettings();
  const on = snap.enabled;
  const set = (fields: SceneSettingsInput, label: string) => editor.setSettings(fields, label);
  const numbers = (fields: NumberField[]) =>
    fields.map(([key, label, min, max, step]) => (
      <label className="row" key={key}>
        {label}
        <input
          type="range"
          min={min}
          max={max}
          step={step}
          disabled={!on}
          aria-label={label}
          value={Number(v[key])}
          onChange={(e) => set({ [key]: Number(e.target.value) }, label)}
        />
        <output>{Number(v[key]).toFixed(step < 0.01 ? 4 : step < 1 ? 2 : 0)}</output>
      </label>
    ));
  const color = (key: Key, label: string) => (
    <label className="row" key={key}>
      {label}
      <input type="color" disabled={!on} aria-label={label} value={`#${String(v[key])}`} onChange={(e) => set({ [key]: e.target.value.slice(1) }, label)} />
    </label>
  );
  const check = (key: Key, label: string) => (
    <label className="row check" key={key}>
      <input type="checkbox" disabled={!on} aria-label={label} checked={Boolean(v[key])} onChange={(e) => set({ [key]: e.target.checked }, label)} />
      {label}
    </label>
  );
  const environmentId = typeof v.environment === 'string' ? v.environment : (v.environment?.id ?? '');
  return (
    <details className="editor-panel scene-settings" open data-testid="scene-panel" key={`${snap.settingsVersion}/${snap.history.steps.length}`}>
      <summary>
        <h2>Scene</h2>
      </summary>
      <h3>Sun and light</h3>
      {numbers(SUN)}
      {color('sunColor', 'Sun colour')}
      <h3>Background</h3>
      <label className="row">
        Type
        <select aria-label="Background type" disabled={!on} value={v.backgroundType} onChange={(e) => set({ backgroundType: e.target.value as BackgroundType }, 'Background type')}>
          {BackgroundType.options.map((type) => (
            <option key={type} value={type} disabled={type === 'environment' && !v.environment}>
              {type === 'environment' && !v.environment ? 'environment (choose one first)' : type}
            </option>
          ))}
        </select>
      </label>
      {(v.backgroundType === 'color' || v.backgroundType === 'gradient') && color('backgroundColor1', v.backgroundType === 'gradient' ? 'Top colour' : 'Colour')}
      {v.backgroundType === 'gradient' && color('backgroundColor2', 'Bottom colour')}
      {numbers(BACKGROUND.filter(([key]) => (key === 'backgroundRotation' ? v.backgroundType === 'gradient' : v.backgroundType === 'environment')))}
      <h3>Environment</h3>
      {catalogError && <p className="empty">{catalogError}</p>}
      <ul className="environments" role="listbox" aria-label="Environment">
        <li role="option" aria-selected={!environmentId}>
          <button type="button" disabled={!on} onClick={() => set({ environment: null }, 'Environment')}>
            None
          </button>
        </li>
        {catalog?.map((entry) => (
          <li key={entry.id} role="option" aria-selected={environmentId === entry.id}>
            <button type="button" disabled={!on} onClick={() => set({ environment: entry.id }, `Environment ${entry.name}`)} title={entry.name}>
              {entry.format === 'hdrjpeg' ? <img src={environmentUrl(entry)} alt="" loading="lazy" /> : <span className="thumb">HDR</span>}
              <span>{entry.name}</span>
            </button>
          </li>
        ))}
      </ul>
      <h3>Rendering and camera</h3>
      <label className="row">
        Tone mapping
        <select aria-label="Tone mapping" disabled={!on} value={v.toneMapping} onChange={(e) => set({ toneMapping: e.target.value as (typeof TONE_MAPPINGS)[number] }, 'Tone mapping')}>
          {TONE_MAPPINGS.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      {numbers(RENDER)}
      <div className="row">
        <span>Initial camera {v.initialCameraPosition ? `(${[v.initialCameraPosition.x, v.initialCameraPosition.y, v.initialCameraPosition.z].map((n) => n.toFixed(1)).join(', ')})` : '(frames the models)'}</span>
        <button type="button" disabled={!on} onClick={() => {
          const view = editor.currentView();
          set({ initialCameraPosition: view.position, initialCameraTarget: view.target }, 'Initial camera');
        }} data-testid="initial-camera">
          Use current view
        </button>
        {v.initialCameraPosition && (
          <button type="button" disabled={!on} onClick={() => set({ initialCameraPosition: null, initialCameraTarget: null }, 'Initial camera')}>
            Clear
          </button>
        )}
      </div>
      <h3>Fog</h3>
      {check('fogEnabled', 'Fog')}
      {v.fogEnabled && numbers(FOG)}
      {v.fogEnabled && color('fogColor', 'Fog colour')}
      <h3>Water</h3>
      {check('waterEnabled', 'Water')}
      {v.waterEnabled && numbers(WATER)}
      {v.waterEnabled && color('waterColor', 'Water colour')}
      <h3>Shadow plane</h3>
      {check('shadowPlaneEnabled', 'Shadow plane')}
      {v.shadowPlaneEnabled && numbers(SHADOW_PLANE)}
    </details>
  );
}
