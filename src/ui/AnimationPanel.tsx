import { useEffect, useState } from 'react';
import { ANIMATION_SPEED_MIN } from '../protocol/constants';
import type { AnimationRow } from '../viewer/animation-control';
import type { Viewer } from '../viewer/viewer';

/** The speed control's range (the specification's minimum is 0.1). */
export const ANIMATION_SPEED_MAX = 4;
const SPEED_STEP = 0.1;
/** While an animation plays, the timelines follow it this often (ms): a UI poll, not a frame loop. */
export const TIMELINE_REFRESH_MS = 200;
/** Below this width the panel starts collapsed. */
const SMALL_SCREEN = '(max-width: 640px)';

/**
 * The animations of the loaded models (viewer specification section 4, "Animations"): each can be
 * played, paused and resumed, and stopped; one loop switch (looping plays forever, otherwise once
 * and holds the last frame) and one global speed (at least 0.1); each has a timeline to scrub with its
 * current time. Shown only when the scene has animations; collapsed at first on small screens (the
 * header's chevron folds it). It reads the UI store's rows and acts through
 * the viewer's `animations`.
 */
export function AnimationPanel({ viewer, animations, speed, onChange }: { viewer: Viewer; animations: readonly AnimationRow[]; speed: number; onChange: () => void }) {
  const several = new Set(animations.map((a) => a.modelId)).size > 1;
  const rows = animations.map((a) => ({ ...a, key: `${a.modelId}/${a.id}`, label: several ? `${a.modelName} · ${a.name}` : a.name }));
  const [open, setOpen] = useState(() => !window.matchMedia?.(SMALL_SCREEN).matches);
  const [loop, setLoop] = useState(true);
  const playing = animations.some((row) => row.status === 'playing');
  useEffect(() => {
    if (!open || !playing) return;
    const timer = setInterval(onChange, TIMELINE_REFRESH_MS);
    return () => clearInterval(timer);
  }, [open, playing, onChange]);

  if (rows.length === 0) return null;

  const a = viewer.animations;
  const toggle = (row: AnimationRow) => {
    if (row.status === 'playing') a.pause(row.modelId, row.id);
    else if (row.status === 'paused') a.resume(row.modelId, row.id);
    else a.play(row.modelId, row.id, { loop });
  };
  const changeLoop = (next: boolean) => {
    setLoop(next);
    // Running animations switch at once, from where they are (their current time, read now).
    for (const row of a.list()) {
      if (row.status === 'stopped' || row.status === 'finished') continue;
      a.play(row.modelId, row.id, { loop: next, time: row.time });
      if (row.status === 'paused') a.pause(row.modelId, row.id);
    }
  };
  const changeSpeed = (value: number) => {
    if (!Number.isFinite(value)) return;
    a.setSpeed(Math.min(ANIMATION_SPEED_MAX, value));
    onChange();
  };

  return (
    <section className={`animation-panel${open ? ' open' : ''}`} aria-label="Animations" data-testid="animation-panel">
      <button type="button" className="animation-panel-header" aria-expanded={open} data-keep-focus="" data-testid="animation-panel-toggle" onClick={() => setOpen(!open)}>
        <span>Animations ({rows.length})</span>
        <svg className="animation-panel-chevron" viewBox="0 0 24 24" aria-hidden="true">
          <path d={open ? 'M6 9l6 6 6-6' : 'M6 15l6-6 6 6'} />
        </svg>
      </button>
      {open && (
        <div className="animation-panel-body">
          <ul className="animation-list">
            {rows.map((row) => {
              const status = row.status;
              return (
                <li key={row.key} className={`animation-row ${status}`} data-testid="animation-row" data-status={status}>
                  <button
                    type="button"
                    className="animation-button"
                    aria-label={`${status === 'playing' ? 'Pause' : status === 'paused' ? 'Resume' : 'Play'} ${row.label}`}
                    data-testid="animation-play"
                    onClick={() => toggle(row)}
                  >
                    <svg viewBox="0 0 24 24" aria-hidden="true">{status === 'playing' ? <path d="M7 5h3.5v14H7zM13.5 5H17v14h-3.5z" /> : <path d="M8 5v14l11-7z" />}</svg>
                  </button>
                  <button
                    type="button"
                    className="animation-button"
                    aria-label={`Stop ${row.label}`}
                    data-testid="animation-stop"
                    disabled={status === 'stopped'}
                    onClick={() => a.stop(row.modelId, row.id)}
                  >
                    <svg viewBox="0 0 24 24" aria-hidden="true">
                      <path d="M7 7h10v10H7z" />
                    </svg>
                  </button>
                  <span className="animation-name" title={row.label}>
                    {row.label}
                  </span>
                  <input
                    type="range"
                    className="animation-timeline"
                    min={0}
                    max={row.duration}
                    step={Math.max(0.01, row.duration / 500)}
                    value={Math.min(row.time, row.duration)}
                    aria-label={`Time of ${row.label}`}
                    aria-valuetext={`${row.time.toFixed(1)} of ${row.duration.toFixed(1)} seconds`}
                    data-testid="animation-timeline"
                    onChange={(e) => {
                      a.seek(row.modelId, row.id, Number(e.target.value));
                      onChange();
                    }}
                  />
                  <span className="animation-duration" data-testid="animation-time">
                    {row.time.toFixed(1)} / {row.duration.toFixed(1)} s
                  </span>
                </li>
              );
            })}
          </ul>
          <div className="animation-settings">
            <label className="animation-loop">
              <input type="checkbox" checked={loop} data-testid="animation-loop" onChange={(e) => changeLoop(e.target.checked)} />
              Loop
            </label>
            <label className="animation-speed">
              <span>Speed</span>
              <input
                type="range"
                min={ANIMATION_SPEED_MIN}
                max={ANIMATION_SPEED_MAX}
                step={SPEED_STEP}
                value={speed}
                aria-valuetext={`${speed.toFixed(1)} times`}
                data-testid="animation-speed"
                onChange={(e) => changeSpeed(Number(e.target.value))}
              />
              <output>{speed.toFixed(1)}×</output>
            </label>
          </div>
        </div>
      )}
    </section>
  );
}
