import { lazy, Suspense, useEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import { useSnapshot } from 'valtio';
import { createEmbedController, prefetchCover, type EmbedController } from './embed-controller';
import { parseEmbedOptions } from './embed-options';
import { addNotice, clearNotices, createEmbedState, UNEXPECTED_ERROR, type EmbedState } from './embed-state';
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

const DEFAULT_LOGO = '/assets/images/logo.svg';
const PRODUCT_URL = 'https://parametricos.com';

/** The embedded viewer screen (viewer specification section 2). */
export function EmbedViewer({ sceneId }: { sceneId: string }) {
  const options = useMemo(() => parseEmbedOptions(window.location.search), []);
  const state = useMemo(() => createEmbedState(), []);
  const snap = useSnapshot(state);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const containerRef = useRef<HTMLDivElement>(null);
  const controllerRef = useRef<EmbedController | null>(null);

  useEffect(() => {
    const canvas = canvasRef.current;
    const container = containerRef.current;
    if (!canvas || !container) return;
    const controller = createEmbedController(sceneId, state, { canvas, container });
    controllerRef.current = controller;
    const prefetch = new AbortController();
    if (options.autoPlay) controller.start();
    else void prefetchCover(sceneId, state, prefetch.signal);
    return () => {
      prefetch.abort();
      controller.dispose();
      controllerRef.current = null;
    };
  }, [sceneId, state, options.autoPlay]);

  const ready = snap.phase === 'ready' && !!snap.viewer && !!controllerRef.current?.viewer;
  // The comments (a chunk of their own) come a moment after the scene.
  const [comments, setComments] = useState<PageComments | null>(null);
  useEffect(() => {
    const controller = controllerRef.current;
    if (!ready || !controller) return;
    let live = true;
    void controller.commentsReady.then((started) => {
      if (live) setComments(started);
    });
    return () => {
      live = false;
      setComments(null);
    };
  }, [ready]);
  // Tab order follows the screen: view, tools (top left), orientation gizmo (top right), view
  // toolbar (right), animations (bottom left), watermark. The gizmo is the viewer's own element:
  // it is moved into its place among the panels.
  const gizmoSlotRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const gizmo = controllerRef.current?.viewer?.gizmo?.element;
    const slot = gizmoSlotRef.current;
    if (ready && gizmo && slot && gizmo.parentNode !== slot) slot.appendChild(gizmo);
  }, [ready]);

  return (
    <div
      className="embed"
      ref={containerRef}
      style={{ ['--accent' as string]: options.uiColor }}
      // The view's focus ring shows for keyboard focus only: Chromium matches :focus-visible on the
      // canvas after a mouse press too, so the last kind of input is kept on the container.
      data-focus-source="pointer"
      onKeyDownCapture={(e) => {
        if (e.key === 'Tab') e.currentTarget.dataset.focusSource = 'keyboard';
      }}
      onPointerDownCapture={(e) => {
        e.currentTarget.dataset.focusSource = 'pointer';
      }}
      onClick={(e) => returnFocusToView(e, canvasRef.current)}
    >
      <canvas
        className="embed-canvas"
        ref={canvasRef}
        data-testid="viewer-canvas"
        // A press on the view takes the keyboard from whatever had it (camera-controls prevents the
        // press's default focus change): Enter then acts on the view, never on a panel's button.
        onPointerDown={(e) => e.currentTarget.focus({ preventScroll: true, focusVisible: false } as FocusOptions)}
        role="application"
        aria-roledescription="3D view"
        aria-label={`3D view${snap.sceneName ? ` of ${snap.sceneName}` : ''}. Drag to orbit, scroll to zoom; arrow keys orbit, + and − zoom; press ? for every shortcut.`}
      />
      {snap.phase === 'not-started' && (
        <Cover
          state={snap as EmbedState}
          thumbnail={options.uiThumbnailUrl ?? snap.thumbnailUrl}
          backgroundType={options.uiBackgroundType}
          backgroundColor={options.uiBackgroundColor}
          onPlay={() => controllerRef.current?.start()}
        />
      )}
      {(snap.phase === 'started' || snap.phase === 'loading') && (
        <LoadingOverlay state={state} logoUrl={options.uiLogoUrl ?? DEFAULT_LOGO} />
      )}
      {snap.phase === 'failed' && (
        <div className="overlay failed" role="alert" data-testid="failure-overlay">
          <p className="failure-title">{snap.failureTitle || UNEXPECTED_ERROR}</p>
          {snap.failureDetail && <p className="failure-detail">{snap.failureDetail}</p>}
          <button type="button" className="reload" onClick={() => window.location.reload()}>
            Reload
          </button>
        </div>
      )}
      {ready && snap.viewer && controllerRef.current?.viewer && (
        <>
          <ToolsPanel
            tools={controllerRef.current.viewer.tools}
            snap={snap.viewer.tools as ToolsSnapshot}
            screenshotAnnotations={snap.screenshotAnnotations}
            onScreenshotAnnotations={(on) => {
              state.screenshotAnnotations = on;
            }}
          />
          <div className="gizmo-slot" ref={gizmoSlotRef} />
          <ViewControls
            viewer={controllerRef.current.viewer}
            state={snap.viewer.navigation}
            annotations={snap.screenshotAnnotations}
            onError={(text, source) => addNotice(state, text, source)}
            onSuccess={(source) => clearNotices(state, source)}
          />
          {/* The bottom-left panels stack: comments above the animations, never over them. */}
          <div className="panel-stack">
            {comments && <comments.Panel viewer={controllerRef.current.viewer} comments={comments.viewer} session={comments.session} sceneName={snap.sceneName} />}
            {snap.viewer.animations.length > 0 && (
              <ChunkBoundary onError={(error) => addNotice(state, `The animation controls could not be loaded: ${error instanceof Error ? error.message : String(error)}`)}>
                <Suspense fallback={null}>
                  <AnimationPanel
                    viewer={controllerRef.current.viewer}
                    animations={snap.viewer.animations}
                    speed={snap.viewer.animationSpeed}
                    onChange={() => controllerRef.current?.viewer && refreshAnimations(controllerRef.current.viewer, state)}
                  />
                </Suspense>
              </ChunkBoundary>
            )}
          </div>
          <ShortcutsOverlay keys={controllerRef.current.viewer.keys} />
          <MeetingPanel
            meeting={snap.meeting as EmbedState['meeting']}
            api={controllerRef.current.meeting}
            call={controllerRef.current.call}
            joinAsMember={() => controllerRef.current?.joinAsMember() ?? false}
            joinAsGuest={(first, last) => controllerRef.current?.joinAsGuest(first, last) ?? Promise.resolve()}
            leave={() => controllerRef.current?.leaveMeeting()}
          />
          {snap.meeting?.call && controllerRef.current.call && (
            <ChunkBoundary onError={(error) => addNotice(state, `The call's video tiles could not be shown: ${error instanceof Error ? error.message : String(error)}`, 'call-tiles')}>
              <Suspense fallback={null}>
                <CallTiles call={controllerRef.current.call} snap={snap.meeting.call as CallSnapshot} participants={snap.meeting.snapshot.participants} />
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
      {options.uiWatermark && (
        <a className="watermark" href={PRODUCT_URL} target="_blank" rel="noopener noreferrer" data-testid="watermark">
          <img src={DEFAULT_LOGO} alt="" /> Parametricos
        </a>
      )}
    </div>
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

/**
 * After a panel button was pressed with the pointer, the view takes the keyboard back: Enter or
 * Delete then act on the view (keep a plane, delete a measurement), never press the same button
 * again. A button pressed from the keyboard (detail 0) keeps the focus, so keyboard users stay put.
 */
function returnFocusToView(event: MouseEvent, canvas: HTMLCanvasElement | null): void {
  if (!canvas || event.detail === 0) return;
  const target = event.target as Element | null;
  const button = target?.closest?.('button, [role="button"]');
  if (!button || !button.closest('.tools-panel, .view-controls, .animation-panel, .gizmo-slot, .tool-labels')) return;
  // Menus and popovers that open in place keep the focus for their items.
  if (button.hasAttribute('data-keep-focus')) return;
  // No focus ring for a pointer user (focusVisible is honoured where supported).
  canvas.focus({ preventScroll: true, focusVisible: false } as FocusOptions);
}
