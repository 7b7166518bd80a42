import { ref } from 'valtio/vanilla';
import { deferredAnnotationStore } from '../viewer/annotations';
import type { PageComments } from './comments-bridge';
import { createDeferredHostApi } from '../api/deferred-host-api';
import type { HostApi } from '../api/host-api';
import { createHostAuth, modelServiceWhoIs } from '../api/host-auth';
import type { ViewerApi } from '../viewer/viewer-api';
import { mark, prefetchSceneInstances, sceneDocuments } from '../viewer/documents';
import type { QualityTier } from '../viewer/quality';
import { createViewer, type Viewer } from '../viewer/viewer';
import { parseEmbedOptions } from './embed-options';
import { bindViewerState } from './viewer-bridge';
import { memberAccess } from './meeting-access';
import type { Meeting } from '../meeting/meeting';
import type { Call } from '../meeting/call';
import type { ClientConfig } from '../protocol/config';
import type { SceneDoc } from '../protocol/scene';
import { addNotice, FAILED_TO_LOAD, UNEXPECTED_ERROR, type EmbedState } from './embed-state';

export interface EmbedController {
  /** Starts the viewer: by autoPlay or the play button. Idempotent. */
  start(): void;
  /** The viewer once started (null before start and after dispose). */
  readonly viewer: Viewer | null;
  /** The scene's comments (pins, threads, panel: ./comments-bridge.ts, a chunk fetched once the scene is shown); null before. */
  readonly comments: PageComments | null;
  /** Resolves once the load has ended: after viewerready went out, or the failure was shown (or the controller was disposed). */
  readonly settled: Promise<void>;
  /** Resolves with the comments once they started (null when they could not, or the page closed first). */
  readonly commentsReady: Promise<PageComments | null>;
  /** The scene's meeting once joined (null before and after leaving). */
  readonly meeting: Meeting | null;
  /** The meeting's audio and video (null when not in a meeting). */
  readonly call: Call | null;
  /** Joins the meeting as a guest (public scenes; visitors who are not signed in). */
  joinAsGuest(firstName: string, lastName: string): Promise<void>;
  /** Joins as the signed-in person (false when there is no token to join with). */
  joinAsMember(): boolean;
  leaveMeeting(): void;
  dispose(): void;
}

interface Debug {
  viewer: Viewer | null;
  state: EmbedState;
}

/**
 * Drives one embedded viewer through its lifecycle: started (viewerinit) -> loading (config,
 * scene, models with progress) -> ready (viewerready to the host) or failed (the overlay).
 */
export function createEmbedController(
  sceneId: string,
  state: EmbedState,
  elements: { canvas: HTMLCanvasElement; container: HTMLElement },
  // `?quality=low|medium|high` forces the rendering tier; absent, the viewer detects it.
  viewerOptions: { quality?: QualityTier | null } = { quality: parseEmbedOptions(window.location.search).quality },
): EmbedController {
  let viewer: Viewer | null = null;
  let unbindViewer: (() => void) | null = null;
  let started = false;
  let loaded: { config: ClientConfig; scene: SceneDoc } | null = null;
  let meeting: { meeting: Meeting; call: Call; leave: () => void } | null = null;
  // The meeting client (socket, avatars, WebRTC) is a chunk of its own, fetched once the scene is shown.
  let bridge: Promise<typeof import('./meeting-bridge')> | null = null;
  const meetingBridge = () => (bridge ??= import('./meeting-bridge'));
  const abort = new AbortController();
  const debug: Debug = { viewer: null, state };
  exposeDebugHandle(debug);
  // The host-page API (src/api): answers as soon as the scene's allowed host origins are known
  // (its document is downloaded once per page: the cover and the load share it). Its code is a
  // chunk of its own, fetched now, in parallel with the scene; messages wait for it in order.
  const hostPage = import('../api/host-page');
  hostPage.catch(() => undefined);
  /** The load's progress while the scene loads (null before and after). */
  let progressSoFar: { loaded: number; total: number; modelsDone: number; modelsTotal: number } | null = null;
  const hostApi: HostApi = createDeferredHostApi({
    self: window,
    // At top level window.parent is the window itself: the lifecycle messages still go out (tests read them).
    parent: window.parent,
    selfOrigin: window.location.origin,
    sceneId,
    instanceId: new URLSearchParams(window.location.search).get('instanceId'),
    // A page that begins to listen during the load hears the progress so far at once: the load
    // may have passed its last byte before the page's api.init arrived.
    onListen: (_origin, tell) => {
      if (progressSoFar) tell('loadprogress', progressSoFar);
    },
  }, hostPage.then((m) => m.createHostApi), (message, error) => {
    console.error(message, error);
    addNotice(state, `${message}${error instanceof Error ? ` (${error.message})` : ''}`);
  });
  let viewerApi: ViewerApi | null = null;
  let comments: PageComments | null = null;
  let settleComments: (value: PageComments | null) => void = () => undefined;
  const commentsReady = new Promise<PageComments | null>((resolve) => {
    settleComments = resolve;
  });
  const commentSession = () => commentsReady.then((c) => c?.session ?? null);
  // A person's token handed over by the host page (setAuthToken): kept in memory only, checked with
  // the scene's model service, and used for the comments before the viewer's own sign-in.
  const hostAuth = createHostAuth({
    whoIs: async (token) => modelServiceWhoIs((await sceneDocuments(sceneId)).config.endpoints.modelService)(token),
  });
  // What the comments' user may do changed with the token: the list says it again (a failure is the session's error, shown by the panel).
  const offHostAuth = hostAuth.subscribe(() => {
    void commentSession().then((session) => session?.refresh().catch(() => undefined));
  });
  sceneDocuments(sceneId).then(
    ({ scene }) => hostApi.setOrigins(scene.hostOrigins),
    (error) => hostApi.fail(`The scene could not be loaded: ${error instanceof Error ? error.message : String(error)}`),
  );

  const fail = (title: string, error: unknown) => {
    progressSoFar = null;
    if (abort.signal.aborted) return;
    const detail = error instanceof Error ? error.message : String(error);
    console.error(title, error);
    state.failureTitle = title;
    state.failureDetail = detail;
    state.phase = 'failed';
    hostApi.fail(`${title} ${detail}`);
  };

  let settle: () => void = () => undefined;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const run = async () => {
    try {
      state.phase = 'loading';
      // The configuration and the scene document download while the viewer sets up its WebGL
      // context (synchronous, and slow on a software GPU); a failure is awaited below. The cover
      // (autoPlay off) already started the same download: it is not made twice.
      const documents = sceneDocuments(sceneId);
      documents.catch(() => undefined);
      // The instance sets of its groups start downloading in the loader worker as soon as the scene
      // document is known: before the WebGL context is made when the page's early download of the
      // document is already in (one task's wait at most), else when it arrives.
      // Only a speed-up: a failure here is a warning, and the load fetches the sets itself.
      const prefetched = documents.then(
        (docs) => {
          try {
            prefetchSceneInstances(docs, abort.signal);
          } catch (error) {
            console.warn('The instance sets could not be prefetched (the load fetches them):', error);
          }
        },
        () => undefined, // the documents' failure is the load's, reported below
      );
      await Promise.race([prefetched, new Promise((resolve) => setTimeout(resolve, 0))]);
      if (abort.signal.aborted) return;
      viewer = createViewer({
        ...elements,
        quality: viewerOptions.quality ?? null,
        onFatal: (error) => fail(UNEXPECTED_ERROR, error),
      });
      debug.viewer = ref(viewer) as Viewer;
      unbindViewer = bindViewerState(viewer, state);
      const { config, scene } = await documents;
      if (abort.signal.aborted) return;
      mark('scene');
      state.sceneName = scene.name;
      const result = await viewer.loadScene(config, scene, {
        signal: abort.signal,
        onProgress: (p) => {
          state.progress = p;
          progressSoFar = { loaded: p.loaded, total: p.total, modelsDone: p.modelsDone, modelsTotal: p.modelsTotal };
          if (hostApi.listening) hostApi.emit('loadprogress', progressSoFar);
        },
        onModelError: ({ model, error }) => {
          console.error(`Model ${model._id} (${model.sourceFileName}) failed to load:`, error);
          addNotice(state, `"${model.sourceFileName}" could not be loaded: ${error.message}`);
        },
        onNotice: (text) => addNotice(state, text),
      });
      for (const model of result.skipped) {
        addNotice(state, `"${model.sourceFileName}" is stored as '${model.outputFormat}', which the viewer does not load.`);
      }
      const attempted = result.loaded.length + result.failed.length;
      if (attempted > 0 && result.loaded.length === 0) {
        const reasons = result.failed.map((f) => `${f.model.sourceFileName}: ${f.error.message}`).join(' ');
        throw new Error(reasons || 'No model could be loaded.');
      }
      // A scene of instanced asset groups alone has something to show (their failures are notices of their own).
      if (attempted === 0 && !result.instanceGroups) addNotice(state, 'This scene has no models to show yet.');
      await viewer.nextFrame();
      mark('first-frame');
      if (abort.signal.aborted) return;
      state.phase = 'ready';
      progressSoFar = null;
      const shownViewer = viewer;
      loaded = { config, scene };
      // The host API: its chunk (and the screenshot's, so that pictures draw in the order of the
      // requests around them) was fetched while the scene loaded, so it is there by now, unless it
      // failed (then the viewer works on without it; the deferred API has said why).
      const [api] = await Promise.all([hostPage.catch(() => null), shownViewer.screenshotReady().catch(() => undefined)]);
      if (abort.signal.aborted) return;
      if (api) viewerApi = api.createViewerApi({
        viewer: shownViewer,
        api: hostApi,
        container: elements.container,
        canvas: elements.canvas,
        annotations: deferredAnnotationStore(
          commentsReady.then((c) => c?.annotations ?? null),
          'The comments of this scene could not be started: annotations are not available.',
        ),
        comments: {
          async open(id, transition) {
            const started = await commentsReady;
            return started ? started.open(id, transition) : false;
          },
        },
        auth: hostAuth,
      });
      if (viewerApi) hostApi.ready(viewerApi.execute);
      hostApi.lifecycle('viewerready');
      mark('viewerready');
      // What the picture does not need starts once viewerready is out (their chunks' downloads and
      // evaluation kept it waiting): the comments, and the meeting.
      const access = memberAccess();
      // The comments are a chunk of their own: the scene shows without waiting for them; the host
      // API's annotation calls made meanwhile wait for them.
      import('./comments-bridge')
        .then(({ startComments }) =>
          startComments(shownViewer, {
            modelService: config.endpoints.modelService,
            sceneId: scene._id,
            token: async () => hostAuth.token() ?? (access ? access.token() : null),
          }),
        )
        .then(
          (started) => {
            if (abort.signal.aborted) return settleComments(null);
            comments = started;
            settleComments(started);
          },
          (error: unknown) => {
            settleComments(null);
            if (abort.signal.aborted) return;
            console.error('The comments could not be started:', error);
            addNotice(state, `The comments could not be started: ${error instanceof Error ? error.message : String(error)}`);
          },
        );
      // A signed-in visitor joins the scene's meeting at once; others may join as guests. The scene
      // is shown whatever happens to the meeting: a failure to join is a notice, never a failed load.
      meetingBridge().then(
        ({ joinMeeting }) => {
          if (access && viewer === shownViewer && !abort.signal.aborted && !meeting) meeting = joinMeeting(shownViewer, state, config, scene, access, commentSession());
        },
        (error: unknown) => addNotice(state, `Could not join the scene's meeting: ${error instanceof Error ? error.message : String(error)}`),
      );
    } catch (error) {
      fail(FAILED_TO_LOAD, error);
    } finally {
      settle();
    }
  };

  return {
    start() {
      if (started) return;
      started = true;
      state.phase = 'started';
      hostApi.lifecycle('viewerinit');
      void run();
    },
    get viewer() {
      return viewer;
    },
    get comments() {
      return comments;
    },
    commentsReady,
    settled,
    get meeting() {
      return meeting?.meeting ?? null;
    },
    get call() {
      return meeting?.call ?? null;
    },
    async joinAsGuest(firstName, lastName) {
      if (!viewer || !loaded) throw new Error('The scene is not loaded yet.');
      meeting?.leave();
      meeting = null;
      const { guestToken, joinMeeting } = await meetingBridge();
      const token = await guestToken(loaded.config, sceneId, firstName, lastName);
      if (!viewer || !loaded || abort.signal.aborted) return;
      meeting = joinMeeting(viewer, state, loaded.config, loaded.scene, { kind: 'guest', token }, commentSession());
    },
    joinAsMember() {
      const access = memberAccess();
      if (!viewer || !loaded || !access) return false;
      const shown = viewer;
      const documents = loaded;
      meetingBridge().then(
        ({ joinMeeting }) => {
          if (viewer !== shown || abort.signal.aborted) return;
          meeting?.leave();
          meeting = joinMeeting(shown, state, documents.config, documents.scene, access, commentSession());
        },
        (error: unknown) => addNotice(state, `Could not join the scene's meeting: ${error instanceof Error ? error.message : String(error)}`),
      );
      return true;
    },
    leaveMeeting() {
      meeting?.leave();
      meeting = null;
    },
    dispose() {
      meeting?.leave();
      meeting = null;
      abort.abort();
      settle();
      offHostAuth();
      settleComments(null);
      comments = null;
      viewerApi?.dispose();
      viewerApi = null;
      hostApi.dispose();
      unbindViewer?.();
      viewer?.dispose();
      viewer = null;
    },
  };
}

/** window.__viewer: a read-only debug handle for devtools and browser tests (DESIGN.md section 6). */
function exposeDebugHandle(debug: Debug): void {
  const handle = {
    get world() {
      return debug.viewer?.world ?? null;
    },
    get objects() {
      return debug.viewer?.world.objects ?? [];
    },
    get stats() {
      return debug.viewer ? { ...debug.viewer.world.stats } : null;
    },
    get phase() {
      return debug.state.phase;
    },
    /** The failure overlay's words once the load failed (null before): what the panels show. */
    get failure() {
      return debug.state.phase === 'failed' ? `${debug.state.failureTitle} ${debug.state.failureDetail}` : null;
    },
    summary() {
      return debug.viewer?.summary() ?? [];
    },
    get viewer() {
      return debug.viewer;
    },
  };
  Object.defineProperty(window, '__viewer', { value: handle, configurable: true });
}

/** Loads the scene document for the cover (thumbnail) before the viewer starts; failures wait for start. */
export async function prefetchCover(sceneId: string, state: EmbedState, signal: AbortSignal): Promise<void> {
  try {
    const { scene } = await sceneDocuments(sceneId);
    if (signal.aborted) return;
    state.sceneName = scene.name;
    state.thumbnailUrl = scene.thumbnailUrl ?? null;
  } catch {
    // The cover works without a thumbnail; a real failure is reported when loading starts.
  }
}
