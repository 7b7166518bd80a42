import type { ReactNode } from 'react';
import type { ToolName, ToolsSnapshot, ViewerTools } from '../viewer/tools';

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
export function ToolsPanel({ tools, snap }: { tools: ViewerTools; snap: ToolsSnapshot }) {
  const area = snap.active === 'area-measure-tool';
  const selectedSection = snap.sections.find((s) => s.selected);
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
      </div>
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
