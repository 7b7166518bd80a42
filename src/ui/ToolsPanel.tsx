import { useState, type ReactNode } from 'react';
import type { ToolName, ToolsSnapshot, ViewerTools } from '../viewer/tools';
import { LENGTH_UNITS, MAX_PRECISION, type LengthUnit, type UpAxis } from '../viewer/tools/format';

const UNIT_NAMES: Record<LengthUnit, string> = { m: 'metres', cm: 'centimetres', mm: 'millimetres', 'ft-in': 'feet and inches' };

const TOOLS: { name: ToolName; label: string; testId: string; icon: ReactNode }[] = [
  {
    name: 'length-measure-tool',
    label: 'Measure length',
    testId: 'tool-length',
    icon: <path d="M3 16.5 16.5 3l4.5 4.5L7.5 21zM7 12.5l2 2M10 9.5l2 2M13 6.5l2 2" />,
  },
  {
    name: 'area-measure-tool',
    label: 'Measure area',
    testId: 'tool-area',
    icon: <path d="M4 7l8-4 8 5-2 11H6z" />,
  },
  {
    name: 'angle-measure-tool',
    label: 'Measure angle',
    testId: 'tool-angle',
    icon: <path d="M20 20H4L15 4M9.5 12.5a6 6 0 0 1 2.5 7.5" />,
  },
  {
    name: 'section-tool',
    label: 'Section plane',
    testId: 'tool-section',
    icon: <path d="M4 9l8-5 8 5-8 5zM4 14l8 5 8-5M12 14v7" />,
  },
];

/**
 * The tools panel of the embedded viewer (top left): the four tools, a hint line saying what to
 * do next (or why a point was refused), Finish/Undo for areas on touch screens, the measurements
 * and section planes with their delete buttons, and the point sampler: its 'Sample point' toggle
 * (the next click or tap samples a point, for touch screens where Shift+click cannot be done) and
 * its hint.
 */
export function ToolsPanel({
  tools,
  snap,
  screenshotAnnotations,
  onScreenshotAnnotations,
}: {
  tools: ViewerTools;
  snap: ToolsSnapshot;
  screenshotAnnotations: boolean;
  onScreenshotAnnotations: (on: boolean) => void;
}) {
  const area = snap.active === 'area-measure-tool';
  const selectedSection = snap.sections.find((s) => s.selected);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const feet = snap.display.unit === 'ft-in';
  return (
    <div className="tools-panel" data-testid="tools-panel">
      <div className="tools-bar" role="toolbar" aria-label="Tools">
        {TOOLS.map((t) => (
          <button
            key={t.name}
            type="button"
            className="tool-button"
            aria-label={t.label}
            title={t.label}
            aria-pressed={snap.active === t.name}
            data-testid={t.testId}
            onClick={() => tools.toggle(t.name)}
          >
            <svg viewBox="0 0 24 24" aria-hidden="true">
              {t.icon}
            </svg>
          </button>
        ))}
        {/* Shift+click samples a point; touch screens have no Shift: this makes the next tap sample. */}
        <button
          type="button"
          className="tool-button"
          aria-label="Sample point"
          title="Sample point (or Shift + click)"
          aria-pressed={snap.sampling}
          data-testid="tool-sample"
          onClick={() => tools.setSampling(!snap.sampling)}
        >
          <svg viewBox="0 0 24 24" aria-hidden="true">
            <path d="M12 2v5M12 17v5M2 12h5M17 12h5M12 9a3 3 0 1 0 0 6a3 3 0 1 0 0-6" />
          </svg>
        </button>
        <button
          type="button"
          className="tool-button"
          aria-label="Units and display"
          title="Units, precision, up axis and screenshots"
          aria-expanded={settingsOpen}
          data-keep-focus=""
          data-testid="tool-settings"
          onClick={() => setSettingsOpen(!settingsOpen)}
        >
          <svg viewBox="0 0 24 24" aria-hidden="true">
            <path d="M4 7h10M18 7h2M4 17h4M12 17h8M16 5v4M10 15v4" />
          </svg>
        </button>
      </div>
      {settingsOpen && (
        <div className="tools-settings" role="group" aria-label="Units and display" data-testid="tools-settings">
          <label>
            <span>Unit</span>
            <select value={snap.display.unit} data-testid="setting-unit" onChange={(e) => tools.setDisplay({ unit: e.target.value as LengthUnit })}>
              {LENGTH_UNITS.map((u) => (
                <option key={u} value={u}>
                  {UNIT_NAMES[u]}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>{feet ? 'Inch fraction' : 'Decimals'}</span>
            <select value={snap.display.precision} data-testid="setting-precision" onChange={(e) => tools.setDisplay({ precision: Number(e.target.value) })}>
              {Array.from({ length: MAX_PRECISION + 1 }, (_, p) => (
                <option key={p} value={p}>
                  {feet ? (p === 0 ? '1"' : `1/${2 ** p}"`) : String(p)}
                </option>
              ))}
            </select>
          </label>
          <label>
            <span>Up axis</span>
            <select value={snap.display.upAxis} data-testid="setting-up-axis" onChange={(e) => tools.setDisplay({ upAxis: e.target.value as UpAxis })}>
              <option value="y">Y up (as stored)</option>
              <option value="z">Z up (buildings)</option>
            </select>
          </label>
          <label className="tools-settings-check">
            <input type="checkbox" checked={screenshotAnnotations} data-testid="setting-screenshot-annotations" onChange={(e) => onScreenshotAnnotations(e.target.checked)} />
            <span>Measurements in screenshots</span>
          </label>
        </div>
      )}
      <p className={`tools-hint${snap.feedback ? ' refused' : ''}`} role="status" aria-live="polite" data-testid="tool-hint">
        {snap.feedback ?? snap.hint}
      </p>
      {area && snap.draftPoints > 0 && (
        <div className="tools-actions">
          <button type="button" className="tools-action" aria-label="Finish the area" data-testid="tool-finish" disabled={snap.draftPoints < 3} onClick={() => tools.measurements.finish()}>
            Finish
          </button>
          <button type="button" className="tools-action" aria-label="Remove the last point" data-testid="tool-undo" disabled={snap.draftPoints === 3} onClick={() => tools.measurements.undo()}>
            Undo point
          </button>
        </div>
      )}
      {selectedSection && snap.active === 'section-tool' && (
        <div className="tools-actions">
          {snap.placing && (
            <button type="button" className="tools-action primary" aria-label="Keep the plane" data-testid="section-done" onClick={() => tools.sections.confirm()}>
              Done
            </button>
          )}
          <button type="button" className="tools-action" aria-label="Move the plane" aria-pressed={snap.gizmoMode === 'translate'} data-testid="section-move" onClick={() => tools.sections.setGizmoMode('translate')}>
            Move
          </button>
          <button type="button" className="tools-action" aria-label="Tilt the plane" aria-pressed={snap.gizmoMode === 'rotate'} data-testid="section-rotate" onClick={() => tools.sections.setGizmoMode('rotate')}>
            Tilt
          </button>
          <button type="button" className="tools-action" aria-label="Flip the plane" data-testid="section-flip" onClick={() => tools.sections.flip(selectedSection.id)}>
            Flip
          </button>
        </div>
      )}
      {(snap.measurements.length > 0 || snap.sections.length > 0) && (
        <ul className="tools-list" data-testid="tools-list" aria-label="Measurements and section planes">
          {snap.measurements.map((m) => (
            <li key={`m${m.id}`} className={m.selected ? 'selected' : ''} data-testid="measurement-item">
              <button type="button" className="tools-item" aria-label={`Select the ${m.kind} measurement ${m.label}`} data-testid="measurement-select" onClick={() => tools.measurements.select(m.id)}>
                <span className="tools-kind">{m.kind}</span> {m.label}
                {m.components && (m.selected || snap.measurements.length === 1) && (
                  <span className="tools-components" data-testid="measurement-components">
                    {m.components}
                  </span>
                )}
              </button>
              <button type="button" className="tools-delete" aria-label={`Delete the ${m.kind} measurement ${m.label}`} data-testid="measurement-delete" onClick={() => tools.measurements.remove(m.id)}>
                ×
              </button>
            </li>
          ))}
          {snap.sections.map((s) => (
            <li key={`s${s.id}`} className={s.selected ? 'selected' : ''} data-testid="section-item">
              <button
                type="button"
                className="tools-item"
                aria-label={`Select ${s.label}`}
                data-testid="section-select"
                onClick={() => {
                  if (tools.active !== 'section-tool') tools.activate('section-tool');
                  tools.sections.select(s.id);
                }}
              >
                <span className="tools-kind">plane</span> {s.label}
              </button>
              <button type="button" className="tools-delete" aria-label={`Delete ${s.label}`} data-testid="section-delete" onClick={() => tools.sections.remove(s.id)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
