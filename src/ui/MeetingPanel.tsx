import { lazy, Suspense, useCallback, useRef, useState, type FormEvent } from 'react';
import type { Meeting } from '../meeting/meeting';
import type { Call } from '../meeting/call';
import { ChunkBoundary } from './ChunkBoundary';
import type { MeetingUiState } from './embed-state';

// The call's controls are a chunk of their own, fetched once a person is in a meeting.
const CallControls = lazy(() => import('./CallPanel').then((m) => ({ default: m.CallControls })));

export interface MeetingPanelProps {
  /** The store's meeting part (a snapshot); null when not in a meeting. */
  meeting: MeetingUiState | null;
  /** The meeting to act on (follow); null when not joined. */
  api: Meeting | null;
  /** The meeting's audio and video; null when not joined. */
  call: Call | null;
  /** Joining: as the signed-in person (true when that was possible), or as a guest. */
  joinAsMember: () => boolean;
  joinAsGuest: (firstName: string, lastName: string) => Promise<void>;
  leave: () => void;
}

const STATUS_TEXT = {
  idle: 'Not connected',
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  stopped: 'Not connected',
} as const;

/**
 * Keeps the panel's height in `--meeting-panel-height` on its parent (the embed's panels, whose
 * children are the screen's), so that on a phone, where the panel takes most of the bottom edge, the
 * bottom-left panels (comments, animations) stay above it however far it opens (the guest form, the
 * participants).
 */
function usePanelHeight(): (element: HTMLDivElement | null) => void {
  const observed = useRef<{ element: HTMLElement; parent: HTMLElement; observer: ResizeObserver } | null>(null);
  return useCallback((element: HTMLDivElement | null) => {
    const current = observed.current;
    if (current && current.element === element) return;
    if (current) {
      current.observer.disconnect();
      current.parent.style.removeProperty('--meeting-panel-height');
      observed.current = null;
    }
    const parent = element?.parentElement;
    if (!element || !parent || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => parent.style.setProperty('--meeting-panel-height', `${element.offsetHeight}px`));
    observer.observe(element);
    parent.style.setProperty('--meeting-panel-height', `${element.offsetHeight}px`);
    observed.current = { element, parent, observer };
  }, []);
}

/**
 * The participants panel (bottom right): who is in the scene's meeting ('First Last', ' (you)' for
 * oneself), the connection's state and why it dropped, join and leave notices, and a Follow button
 * per person. Not in a meeting: a Join button (signed-in visitors) or a name form (guests).
 */
export function MeetingPanel({ meeting, api, call, joinAsMember, joinAsGuest, leave }: MeetingPanelProps) {
  const panelRef = usePanelHeight();
  const [open, setOpen] = useState(true);
  const [guest, setGuest] = useState(false);
  const [first, setFirst] = useState('');
  const [last, setLast] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [callError, setCallError] = useState<string | null>(null);

  if (!meeting) {
    const submit = async (event: FormEvent) => {
      event.preventDefault();
      setBusy(true);
      setError(null);
      try {
        await joinAsGuest(first.trim(), last.trim());
      } catch (e) {
        setError((e as Error).message);
      } finally {
        setBusy(false);
      }
    };
    return (
      <div className="meeting-panel" data-testid="meeting-panel" ref={panelRef}>
        {!guest ? (
          <button type="button" className="meeting-join" data-testid="meeting-join" onClick={() => joinAsMember() || setGuest(true)}>
            Join meeting
          </button>
        ) : (
          <form className="meeting-guest" onSubmit={submit} data-testid="meeting-guest-form">
            <label>
              First name <input value={first} onChange={(e) => setFirst(e.target.value)} required maxLength={100} autoComplete="given-name" />
            </label>
            <label>
              Last name <input value={last} onChange={(e) => setLast(e.target.value)} maxLength={100} autoComplete="family-name" />
            </label>
            {error && (
              <p className="meeting-error" role="alert">
                {error}
              </p>
            )}
            <div className="meeting-row">
              <button type="submit" disabled={busy || first.trim() === ''}>
                Join as guest
              </button>
              <button type="button" onClick={() => setGuest(false)}>
                Cancel
              </button>
            </div>
          </form>
        )}
      </div>
    );
  }

  const { snapshot, notices } = meeting;
  const following = snapshot.participants.find((p) => p.followed);
  return (
    <div className={`meeting-panel${open ? ' open' : ''}`} data-testid="meeting-panel" data-status={snapshot.status} ref={panelRef}>
      <div className="meeting-head">
        <button type="button" className="meeting-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          <span className={`meeting-dot ${snapshot.status}`} aria-hidden="true" />
          <span data-testid="meeting-status">{STATUS_TEXT[snapshot.status]}</span>
          <span className="meeting-count" data-testid="meeting-count">
            {snapshot.participants.length}
          </span>
        </button>
        <button
          type="button"
          className="meeting-leave"
          onClick={() => {
            setCallError(null);
            leave();
          }}
          title="Leave the meeting"
        >
          Leave
        </button>
      </div>
      {snapshot.reason && snapshot.status !== 'connected' && (
        <p className="meeting-reason" role="status" data-testid="meeting-reason">
          {snapshot.reason}
        </p>
      )}
      {following && (
        <div className="meeting-following" data-testid="meeting-following">
          Following {following.name}
          <button type="button" onClick={() => api?.follow(null)} data-testid="meeting-stop-follow">
            Stop
          </button>
        </div>
      )}
      {open && (
        <ul className="meeting-participants" aria-label="Participants" data-testid="meeting-participants">
          {snapshot.participants.map((p) => (
            <li key={p.id} data-testid="meeting-participant" data-self={p.self || undefined}>
              <span className="meeting-swatch" style={{ background: p.color }} aria-hidden="true" />
              <span className="meeting-name">{p.name}</span>
              {p.following && <span className="meeting-tag">following</span>}
              {!p.self && (
                <button
                  type="button"
                  className="meeting-follow"
                  aria-pressed={p.followed}
                  data-testid="meeting-follow"
                  onClick={() => {
                    try {
                      api?.follow(p.followed ? null : p.id);
                    } catch (e) {
                      console.error(e);
                    }
                  }}
                >
                  {p.followed ? 'Unfollow' : 'Follow'}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {call && meeting.call && snapshot.status === 'connected' && (
        <ChunkBoundary onError={(e) => setCallError(`The call controls could not be shown: ${e instanceof Error ? e.message : String(e)}`)}>
          <Suspense fallback={null}>
            <CallControls call={call} snap={meeting.call} />
          </Suspense>
        </ChunkBoundary>
      )}
      {callError && (
        <p className="meeting-error" role="alert">
          {callError}
        </p>
      )}
      {notices.length > 0 && (
        <ul className="meeting-notices" aria-live="polite" data-testid="meeting-notices">
          {notices.map((n) => (
            <li key={n.id}>{n.text}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
