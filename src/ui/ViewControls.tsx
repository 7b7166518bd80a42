import { useEffect, useState, type ReactNode } from 'react';
import type { NavigationEventData } from '../viewer/events';
import type { NavigationMode } from '../viewer/navigation';
import { downloadBlob, MAX_SCREENSHOT_PIXELS, screenshotFileName } from '../viewer/screenshot-files';
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

/** Below this width the toolbar folds into a menu button. */
export const NARROW_SCREEN = '(max-width: 640px)';
/** How long 'Screenshot saved' stays. */
const SAVED_NOTE_MS = 6000;

type ShotStatus = 'idle' | 'busy' | 'saved';

function useMediaQuery(query: string): boolean {
  const [matches, setMatches] = useState(() => !!window.matchMedia?.(query).matches);
  useEffect(() => {
    const list = window.matchMedia?.(query);
    if (!list) return;
    const onChange = () => setMatches(list.matches);
    list.addEventListener('change', onChange);
    onChange();
    return () => list.removeEventListener('change', onChange);
  }, [query]);
  return matches;
}

/**
 * The view toolbar of the embedded viewer: navigation mode (Orbit, First person, Plan),
 * perspective/orthographic, Fit (frames the models from the current direction), Home (the view the
 * scene opened with) and a screenshot download that says while it is made and when it is saved.
 * Under the orientation gizmo at the right; on narrow screens it folds into one menu button so it
 * does not cover the model.
 */
export function ViewControls({
  viewer,
  state,
  annotations,
  onError,
  onSuccess,
}: {
  viewer: Viewer;
  state: NavigationEventData;
  /** Screenshots include measurements, labels and pins. */
  annotations: boolean;
  /** A failed action: the text and which action (the next success of it clears the text). */
  onError: (text: string, source: string) => void;
  onSuccess: (source: string) => void;
}) {
  const navigation = viewer.navigation;
  const [shot, setShot] = useState<ShotStatus>('idle');
  const narrow = useMediaQuery(NARROW_SCREEN);
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    if (shot !== 'saved') return;
    const timer = setTimeout(() => setShot('idle'), SAVED_NOTE_MS);
    return () => clearTimeout(timer);
  }, [shot]);

  const ortho = state.projection === 'Orthographic';
  const busy = shot === 'busy';
  const screenshot = async () => {
    if (busy) return;
    setShot('busy');
    try {
      // Let the 'Making the screenshot' note show before the (synchronous) drawing takes the thread.
      await new Promise((resolve) => setTimeout(resolve, 30));
      // Twice the screen's resolution, less on a screen so large that would pass the picture limit.
      const canvas = viewer.context.renderer.domElement;
      const fits = Math.sqrt(MAX_SCREENSHOT_PIXELS / Math.max(1, canvas.width * canvas.height));
      const blob = await viewer.screenshot({ scale: Math.min(SCREENSHOT_BUTTON_SCALE, Math.floor(fits * 100) / 100), format: 'png', annotations });
      downloadBlob(blob, screenshotFileName('png'));
      onSuccess('screenshot');
      setShot('saved');
    } catch (error) {
      console.error('The screenshot failed:', error);
      onError(`The screenshot could not be made: ${error instanceof Error ? error.message : String(error)}`, 'screenshot');
      setShot('idle');
    }
  };
  const frame = (keepDirection: boolean) => {
    const done = keepDirection ? viewer.frame(true, { keepDirection: true }) : navigation.home(true);
    done.then(
      () => onSuccess('view'),
      (error: unknown) => {
        console.error('Framing the view failed:', error);
        onError(`The view could not be fitted to the models: ${error instanceof Error ? error.message : String(error)}`, 'view');
      },
    );
  };
  const folded = narrow && !menuOpen;

  return (
    <div className={`view-controls${narrow ? ' narrow' : ''}`} role="toolbar" aria-label="View" data-testid="view-controls">
      {narrow && (
        <button
          type="button"
          className="view-button view-menu-button"
          aria-label="View options"
          aria-expanded={menuOpen}
          data-keep-focus=""
          data-testid="view-menu"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          <Icon>{menuOpen ? <path d="M6 6l12 12M18 6L6 18" /> : <path d="M4 7h16M4 12h16M4 17h16" />}</Icon>
        </button>
      )}
      {!folded && (
      <>
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
        <button type="button" className="view-button" aria-label="Fit to the models" title="Fit to the models (from this direction)" data-testid="fit-view" onClick={() => frame(true)}>
          <Icon>
            <path d="M4 9V4h5M15 4h5v5M20 15v5h-5M9 20H4v-5" />
            <rect x="9" y="9" width="6" height="6" rx="1" />
          </Icon>
        </button>
        <button type="button" className="view-button" aria-label="Home view" title="Home: back to the view the scene opened with" data-testid="home-view" onClick={() => frame(false)}>
          <Icon>
            <path d="M4 11.5 12 4l8 7.5M6.5 9.5V20h11V9.5M10 20v-5h4v5" />
          </Icon>
        </button>
        <button
          type="button"
          className="view-button"
          aria-label="Download a screenshot"
          title={`Download a screenshot (PNG, twice the screen's resolution${annotations ? ', with the measurements' : ''})`}
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
      </>
      )}
      <p className={`view-status${shot === 'idle' ? ' idle' : ''}`} role="status" aria-live="polite" data-testid="screenshot-status">
        {shot === 'busy' ? 'Making the screenshot…' : shot === 'saved' ? `Screenshot saved: ${screenshotFileName('png')}` : ''}
      </p>
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
