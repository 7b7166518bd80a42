import { useEffect, useMemo, useState } from 'react';
import { LoopOnce } from 'three';
import { ANIMATION_SPEED_DEFAULT, ANIMATION_SPEED_MIN } from '../protocol/constants';
import type { AnimationEntry, ModelRecord } from '../engine/world';
import { onAnimationEvent, pauseAnimation, playAnimation, resumeAnimation, setAnimationSpeed, stopAnimation } from '../viewer/animation';
import type { Viewer } from '../viewer/viewer';

/** The speed control's range (the specification's minimum is 0.1). */
export const ANIMATION_SPEED_MAX = 4;
const SPEED_STEP = 0.1;
/** Below this width the panel starts collapsed. */
const SMALL_SCREEN = '(max-width: 640px)';

/** 'finished': a play-once animation that ended and holds its last frame. */
type Status = 'playing' | 'paused' | 'finished' | 'stopped';

interface Row {
  key: string;
  record: ModelRecord;
  entry: AnimationEntry;
  /** Shown as "model · animation" when the scene has several models with animations. */
  label: string;
}

function statusOf(entry: AnimationEntry): Status {
  const action = entry.action;
  if (!action || !action.enabled || !action.isScheduled()) return 'stopped';
  if (action.paused) return action.loop === LoopOnce && action.time >= entry.clip.duration - 1e-6 ? 'finished' : 'paused';
  return action.isRunning() ? 'playing' : 'stopped';
}

/**
 * The animations of the loaded models (viewer specification section 4, "Animations"): each can be
 * played, paused and resumed, and stopped; one loop switch (looping plays forever, otherwise once
 * and holds the last frame) and one global speed (at least 0.1). Shown only when the scene has
 * animations; collapsed at first on small screens.
 */
export function AnimationPanel({ viewer }: { viewer: Viewer }) {
  const world = viewer.world;
  const rows = useMemo<Row[]>(() => {
    const records = [...world.models.values()].filter((r) => r.animations.length > 0);
    return records.flatMap((record) =>
      record.animations.map((entry) => ({
        key: `${record.modelId}/${entry.id}`,
        record,
        entry,
        label: records.length > 1 ? `${record.name} · ${entry.name}` : entry.name,
      })),
    );
  }, [world]);
  const [open, setOpen] = useState(() => !window.matchMedia?.(SMALL_SCREEN).matches);
  const [loop, setLoop] = useState(true);
  const [speed, setSpeed] = useState(() => world.animation.speed || ANIMATION_SPEED_DEFAULT);
  // Bumped by every animation event (start, stop, pause, resume, finish): the rows re-read their state.
  const [, setVersion] = useState(0);
  useEffect(() => onAnimationEvent(world, () => setVersion((v) => v + 1)), [world]);

  if (rows.length === 0) return null;

  const toggle = (row: Row) => {
    const status = statusOf(row.entry);
    if (status === 'playing') pauseAnimation(world, row.record, row.entry.id);
    else if (status === 'paused') resumeAnimation(world, row.record, row.entry.id);
    else playAnimation(world, row.record, row.entry.id, { loop });
  };
  const changeLoop = (next: boolean) => {
    setLoop(next);
    // Running animations switch at once, from where they are.
    for (const row of rows) {
      const status = statusOf(row.entry);
      if (status === 'stopped' || status === 'finished') continue;
      playAnimation(world, row.record, row.entry.id, { loop: next, time: row.entry.action?.time ?? 0 });
      if (status === 'paused') pauseAnimation(world, row.record, row.entry.id);
    }
  };
  const changeSpeed = (value: number) => {
    if (!Number.isFinite(value)) return;
    setSpeed(setAnimationSpeed(world, Math.min(ANIMATION_SPEED_MAX, value)));
  };

  return (
    <section className={`animation-panel${open ? ' open' : ''}`} aria-label="Animations" data-testid="animation-panel">
      <button type="button" className="animation-panel-header" aria-expanded={open} data-testid="animation-panel-toggle" onClick={() => setOpen(!open)}>
        <svg viewBox="0 0 24 24" aria-hidden="true">
          <path d="M8 5v14l11-7z" />
        </svg>
        <span>Animations ({rows.length})</span>
        <span className="animation-panel-chevron" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
      </button>
      {open && (
        <div className="animation-panel-body">
          <ul className="animation-list">
            {rows.map((row) => {
              const status = statusOf(row.entry);
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
                    onClick={() => stopAnimation(world, row.record, row.entry.id)}
                  >
                    <svg viewBox="0 0 24 24" aria-hidden="true">
                      <path d="M7 7h10v10H7z" />
                    </svg>
                  </button>
                  <span className="animation-name" title={row.label}>
                    {row.label}
                  </span>
                  <span className="animation-duration">{row.entry.clip.duration.toFixed(1)} s</span>
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
