import { lazy, Suspense, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useSnapshot } from 'valtio';
import { mark } from '../viewer/documents';
import type { EmbedBoot } from './embed-boot';
import { addNotice, clearNotices, DEFAULT_LOGO, UNEXPECTED_ERROR, type EmbedState } from './embed-state';
import { LoadingOverlay } from './LoadingOverlay';
import { ChunkBoundary } from './ChunkBoundary';
import { MeetingPanel } from './MeetingPanel';
import { ShortcutsOverlay } from './ShortcutsOverlay';
import { ToolsPanel } from './ToolsPanel';
import type { PageComments } from './comments-bridge';
import { ViewControls } from './ViewControls';
import { refreshAnimations } from './viewer-bridge';

// Shown only for scenes with animations: a chunk of its own.
const AnimationPanel = lazy(() => import('./AnimationPanel').then((m) => ({ default: m.AnimationPanel })));
// The call's video tiles: a chunk fetched once a call starts.
const CallTiles = lazy(() => import('./CallPanel').then((m) => ({ default: m.CallTiles })));
import type { ToolsSnapshot } from '../viewer/tools';
import type { CallSnapshot } from '../meeting/call';

/**
 * The embedded viewer's panels (viewer specification section 2), over the screen that
 * src/ui/embed-boot.ts made and started: rendered into its `ui` element once this chunk arrived.
 */
export function EmbedViewer({ boot }: { boot: EmbedBoot }) {
  const { options, state, controller } = boot;
  const snap = useSnapshot(state);
  // The panels say they are there (tests/e2e/helpers.ts `settled` waits for it before it looks for
  // what they show: notices, the failure overlay).
  useLayoutEffect(() => {
    boot.ui.dataset.panels = 'ready';
    mark('panels');
  }, [boot]);
  // The plain loading overlay the boot showed stays while the scene loads (LoadingOverlay fills it
  // with the progress); anything else (the failure overlay) replaces it in the same paint.
  const loading = snap.phase === 'started' || snap.phase === 'loading';
  useLayoutEffect(() => {
    if (!loading) boot.takeLoadingOverlay();
  }, [boot, loading]);

  const ready = snap.phase === 'ready' && !!snap.viewer && !!controller.viewer;
  // The comments (a chunk of their own) come a moment after the scene.
  const [comments, setComments] = useState<PageComments | null>(null);
  useEffect(() => {
    if (!ready) return;
    let live = true;
    void controller.commentsReady.then((started) => {
      if (live) setComments(started);
    });
    return () => {
      live = false;
      setComments(null);
    };
  }, [ready, controller]);
  // Tab order follows the screen: view, tools (top left), orientation gizmo (top right), view
  // toolbar (right), animations (bottom left), watermark. The gizmo is the viewer's own element:
  // it is moved into its place among the panels.
  const gizmoSlotRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const gizmo = controller.viewer?.gizmo?.element;
    const slot = gizmoSlotRef.current;
    if (ready && gizmo && slot && gizmo.parentNode !== slot) slot.appendChild(gizmo);
  }, [ready, controller]);

  return (
    <>
      {snap.phase === 'not-started' && (
        <Cover
          state={snap as EmbedState}
          thumbnail={options.uiThumbnailUrl ?? snap.thumbnailUrl}
          backgroundType={options.uiBackgroundType}
          backgroundColor={options.uiBackgroundColor}
          onPlay={() => controller.start()}
        />
      )}
      {loading && <LoadingOverlay state={state} logoUrl={options.uiLogoUrl ?? DEFAULT_LOGO} since={boot.loading.since || undefined} host={boot.loading.element ? { element: boot.loading.element, words: boot.loading.words } : undefined} />}
      {snap.phase === 'failed' && (
        <div className="overlay failed" role="alert" data-testid="failure-overlay">
          <p className="failure-title">{snap.failureTitle || UNEXPECTED_ERROR}</p>
          {snap.failureDetail && <p className="failure-detail">{snap.failureDetail}</p>}
          <button type="button" className="reload" onClick={() => window.location.reload()}>
            Reload
          </button>
        </div>
      )}
      {ready && snap.viewer && controller.viewer && (
        <>
          <ToolsPanel
            tools={controller.viewer.tools}
            snap={snap.viewer.tools as ToolsSnapshot}
            screenshotAnnotations={snap.screenshotAnnotations}
            onScreenshotAnnotations={(on) => {
              state.screenshotAnnotations = on;
            }}
          />
          <div className="gizmo-slot" ref={gizmoSlotRef} />
          <ViewControls
            viewer={controller.viewer}
            state={snap.viewer.navigation}
            annotations={snap.screenshotAnnotations}
            onError={(text, source) => addNotice(state, text, source)}
            onSuccess={(source) => clearNotices(state, source)}
          />
          {/* The bottom-left panels stack: comments above the animations, never over them. */}
          <div className="panel-stack">
            {comments && <comments.Panel viewer={controller.viewer} comments={comments.viewer} session={comments.session} sceneName={snap.sceneName} />}
            {snap.viewer.animations.length > 0 && (
              <ChunkBoundary onError={(error) => addNotice(state, `The animation controls could not be loaded: ${error instanceof Error ? error.message : String(error)}`)}>
                <Suspense fallback={null}>
                  <AnimationPanel
                    viewer={controller.viewer}
                    animations={snap.viewer.animations}
                    speed={snap.viewer.animationSpeed}
                    onChange={() => controller.viewer && refreshAnimations(controller.viewer, state)}
                  />
                </Suspense>
              </ChunkBoundary>
            )}
          </div>
          <ShortcutsOverlay keys={controller.viewer.keys} />
          <MeetingPanel
            meeting={snap.meeting as EmbedState['meeting']}
            api={controller.meeting}
            call={controller.call}
            joinAsMember={() => controller.joinAsMember()}
            joinAsGuest={(first, last) => controller.joinAsGuest(first, last)}
            leave={() => controller.leaveMeeting()}
          />
          {snap.meeting?.call && controller.call && (
            <ChunkBoundary onError={(error) => addNotice(state, `The call's video tiles could not be shown: ${error instanceof Error ? error.message : String(error)}`, 'call-tiles')}>
              <Suspense fallback={null}>
                <CallTiles call={controller.call} snap={snap.meeting.call as CallSnapshot} participants={snap.meeting.snapshot.participants} />
              </Suspense>
            </ChunkBoundary>
          )}
        </>
      )}
      {snap.notices.length > 0 && snap.phase !== 'failed' && (
        <ul className="notices" data-testid="notices">
          {snap.notices.map((n) => (
            <li key={n.id}>
              <span>{n.text}</span>
              <button type="button" aria-label="Dismiss" onClick={() => dismiss(state, n.id)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function Cover(props: {
  state: EmbedState;
  thumbnail: string | null;
  backgroundType: 'image' | 'color' | null;
  backgroundColor: string;
  onPlay: () => void;
}) {
  const style: React.CSSProperties = {};
  if (props.backgroundType === 'image' && props.thumbnail) {
    style.backgroundImage = `url("${encodeURI(props.thumbnail)}")`;
  } else if (props.backgroundType === 'color') {
    style.backgroundColor = props.backgroundColor;
  }
  return (
    <div className="overlay cover" style={style} data-testid="cover" data-background={props.backgroundType ?? 'transparent'}>
      {props.state.sceneName && <div className="cover-title">{props.state.sceneName}</div>}
      <button type="button" className="play" aria-label="Start the viewer" onClick={props.onPlay} data-testid="play-button">
        <svg viewBox="0 0 24 24" aria-hidden="true">
          <path d="M8 5v14l11-7z" />
        </svg>
      </button>
    </div>
  );
}

function dismiss(state: EmbedState, id: number) {
  const i = state.notices.findIndex((n) => n.id === id);
  if (i >= 0) state.notices.splice(i, 1);
}
