import { useState, type ReactNode } from 'react';
import type { NavigationEventData } from '../viewer/events';
import type { NavigationMode } from '../viewer/navigation';
import { downloadBlob, MAX_SCREENSHOT_PIXELS, screenshotFileName } from '../viewer/screenshot';
import type { Viewer } from '../viewer/viewer';

/** The screenshot button's picture: twice the canvas's drawing size (less if that passes MAX_SCREENSHOT_PIXELS), PNG. */
export const SCREENSHOT_BUTTON_SCALE = 2;

const MODES: { mode: NavigationMode; label: string; hint?: string; testId: string; icon: ReactNode }[] = [
  {
    mode: 'Orbit',
    label: 'Orbit',
    testId: 'nav-mode-orbit',
    icon: (
      <>
        <path d="M19.5 12a7.5 7.5 0 1 1-2.2-5.3" />
        <path d="M19.6 3.8v3.6H16" />
        <circle cx="12" cy="12" r="2.2" />
      </>
    ),
  },
  {
    mode: 'FirstPerson',
    label: 'First person',
    hint: 'First person: drag to look, W A S D or the arrow keys to walk',
    testId: 'nav-mode-first-person',
    icon: (
      <>
        <circle cx="12" cy="6.5" r="3" />
        <path d="M6 20c0-3.8 2.7-6.5 6-6.5s6 2.7 6 6.5" />
      </>
    ),
  },
  {
    mode: 'Plan',
    label: 'Plan',
    testId: 'nav-mode-plan',
    icon: (
      <>
        <rect x="4" y="4" width="16" height="16" rx="1.5" />
        <path d="M4 11h9v9M13 4v4" />
      </>
    ),
  },
];

/**
 * The view toolbar of the embedded viewer: navigation mode (Orbit, First person, Plan),
 * perspective/orthographic, fit to the models and a screenshot download. Under the orientation
 * gizmo at the right; a row at the bottom on narrow screens.
 */
export function ViewControls({ viewer, state, onError }: { viewer: Viewer; state: NavigationEventData; onError: (text: string) => void }) {
  const navigation = viewer.navigation;
  const [busy, setBusy] = useState(false);

  const ortho = state.projection === 'Orthographic';
  const screenshot = async () => {
    if (busy) return;
    setBusy(true);
    try {
      // Twice the screen's resolution, less on a screen so large that would pass the picture limit.
      const canvas = viewer.context.renderer.domElement;
      const fits = Math.sqrt(MAX_SCREENSHOT_PIXELS / Math.max(1, canvas.width * canvas.height));
      const blob = await viewer.screenshot({ scale: Math.min(SCREENSHOT_BUTTON_SCALE, Math.floor(fits * 100) / 100), format: 'png' });
      downloadBlob(blob, screenshotFileName('png'));
    } catch (error) {
      console.error('The screenshot failed:', error);
      onError(`The screenshot could not be made: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="view-controls" role="toolbar" aria-label="View" data-testid="view-controls">
      <div className="view-controls-group" role="group" aria-label="Navigation mode">
        {MODES.map((m) => {
          // First person needs perspective: in orthographic the viewer stays in Orbit.
          const unavailable = m.mode === 'FirstPerson' && ortho;
          return (
            <button
              key={m.mode}
              type="button"
              className="view-button"
              aria-label={m.label}
              title={unavailable ? 'First person needs the perspective projection' : (m.hint ?? m.label)}
              aria-pressed={state.mode === m.mode}
              disabled={unavailable}
              data-testid={m.testId}
              onClick={(e) => {
                navigation.setMode(m.mode);
                // Chosen with the pointer: the view takes the keyboard so W A S D walk at once
                // (a keyboard user stays on the toolbar).
                if (m.mode === 'FirstPerson' && e.detail > 0) viewer.context.renderer.domElement.focus({ preventScroll: true });
              }}
            >
              <Icon>{m.icon}</Icon>
            </button>
          );
        })}
      </div>
      <div className="view-controls-group" role="group" aria-label="View actions">
        <button
          type="button"
          className="view-button"
          aria-label="Orthographic projection"
          title={ortho ? 'Orthographic (press for perspective)' : 'Perspective (press for orthographic)'}
          aria-pressed={ortho}
          data-testid="projection-toggle"
          onClick={() => navigation.toggleProjection()}
        >
          <Icon>
            {ortho ? (
              <path d="M5 7h14v10H5zM5 7l3-3h14v10l-3 3M19 7l3-3" />
            ) : (
              <path d="M3 7l6-3h12v12l-6 4H3zM15 8v12M15 8l6-4M3 7h12" />
            )}
          </Icon>
        </button>
        <button type="button" className="view-button" aria-label="Fit to the models" title="Fit to the models" data-testid="fit-view" onClick={() => {
            viewer.frame(true).catch((error: unknown) => {
              console.error('Fitting the view failed:', error);
              onError(`The view could not be fitted to the models: ${error instanceof Error ? error.message : String(error)}`);
            });
          }}>
          <Icon>
            <path d="M4 9V4h5M15 4h5v5M20 15v5h-5M9 20H4v-5" />
            <rect x="9" y="9" width="6" height="6" rx="1" />
          </Icon>
        </button>
        <button
          type="button"
          className="view-button"
          aria-label="Download a screenshot"
          title="Download a screenshot (PNG, twice the screen's resolution)"
          aria-busy={busy}
          disabled={busy}
          data-testid="screenshot-button"
          onClick={() => void screenshot()}
        >
          <Icon>
            <path d="M4 8h3l2-3h6l2 3h3v11H4z" />
            <circle cx="12" cy="13" r="3.5" />
          </Icon>
        </button>
      </div>
    </div>
  );
}

function Icon({ children }: { children: ReactNode }) {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.7" strokeLinecap="round" strokeLinejoin="round">
      {children}
    </svg>
  );
}
