import type {
  ApiEventMessage,
  ApiInitResult,
  ApiResponse,
  HostArgs,
  HostEventData,
  HostEventName,
  HostFunctionName,
  HostResult,
  LifecycleMessage,
} from '../protocol/host-api';

/**
 * ViewerClient: the host page's side of the host API (DESIGN.md 4.3), promise-based and typed from
 * the same schemas the viewer checks (src/protocol/host-api.ts). Served by the server as an ES
 * module at /api/viewer-client.js and exported by the package as `parametricos-viewer/client`.
 *
 *   const viewer = new ViewerClient(document.querySelector('iframe'));
 *   await viewer.ready();
 *   const models = await viewer.api.listModels();
 *   viewer.on('raycast', (hit) => console.log(hit.nodeName));
 *   viewer.on('hotspots', ({ points }) => place(points)); // no animation loop of your own
 *
 * Only messages from the iframe's window and the viewer's origin are read; each request has its
 * own requestId; an error answer rejects with ViewerApiError (its message names the argument).
 */

export type {
  HostArgs,
  HostEventData,
  HostEventName,
  HostFunctionName,
  HostResult,
} from '../protocol/host-api';

/** Every function as a method: `client.api.setCamera({ position, target })`. */
export type ViewerFunctions = {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- `{} extends Args`: every argument is optional
  [F in HostFunctionName]: {} extends HostArgs<F> ? (args?: HostArgs<F>) => Promise<HostResult<F>> : (args: HostArgs<F>) => Promise<HostResult<F>>;
};

export interface ViewerClientOptions {
  /** The viewer's origin (default: the iframe's src). */
  origin?: string;
  /** The viewer's instanceId (the iframe URL's `?instanceId=`, or one to assign at init). */
  instanceId?: string;
  /** How long a request may take before it rejects (default 60 s; pictures of large scenes take long). */
  timeoutMs?: number;
  /** How long ready() waits for the viewer (default 120 s). */
  readyTimeoutMs?: number;
}

export class ViewerApiError extends Error {
  constructor(
    message: string,
    readonly func: string,
  ) {
    super(message);
    this.name = 'ViewerApiError';
  }
}

type Listener = (data: never, event: string) => void;

/** api.init is sent again at this interval until the viewer answers (its page may still be loading). */
export const INIT_RETRY_MS = 250;

export class ViewerClient {
  readonly origin: string;
  /** The functions, typed: each returns a promise of its result. */
  readonly api: ViewerFunctions;
  private instanceId: string | null;
  /** The instance id this page chose (option or iframe URL): kept when the viewer restarts. */
  private readonly chosenInstanceId: string | null;
  private readonly timeoutMs: number;
  private readonly readyTimeoutMs: number;
  private readonly pending = new Map<string, { resolve: (v: unknown) => void; reject: (e: Error) => void; func: string; timer: ReturnType<typeof setTimeout> }>();
  private readonly listeners = new Map<string, Set<Listener>>();
  private nextId = 0;
  private init: ApiInitResult | null = null;
  private readyPromise: Promise<ApiInitResult> | null = null;
  private viewerReady = false;
  private readyWaiters: (() => void)[] = [];
  private initWaiters: ((result: ApiInitResult) => void)[] = [];
  private readonly onMessage = (event: MessageEvent) => this.receive(event);
  private disposed = false;

  constructor(
    readonly iframe: HTMLIFrameElement,
    options: ViewerClientOptions = {},
  ) {
    this.origin = options.origin ?? new URL(iframe.src, window.location.href).origin;
    this.instanceId = options.instanceId ?? new URL(iframe.src, window.location.href).searchParams.get('instanceId');
    this.chosenInstanceId = this.instanceId;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
    window.addEventListener('message', this.onMessage);
    this.api = new Proxy({} as ViewerFunctions, {
      get: (_target, name) => (typeof name === 'string' && name !== 'then' ? (args?: unknown) => this.call(name as HostFunctionName, args as never) : undefined),
    });
  }

  /** Resolves once the viewer answered api.init and shows its scene (viewerready). */
  ready(): Promise<ApiInitResult> {
    this.readyPromise ??= new Promise<ApiInitResult>((resolve, reject) => {
      const timer = setTimeout(() => reject(new ViewerApiError(`The viewer at ${this.origin} did not get ready within ${this.readyTimeoutMs} ms.`, 'api.init')), this.readyTimeoutMs);
      const retry = setInterval(() => this.sendInit(), INIT_RETRY_MS);
      this.sendInit();
      this.initWaiters.push((result) => {
        clearInterval(retry);
        if (result.error) {
          clearTimeout(timer);
          reject(new ViewerApiError(result.error, 'api.init'));
          return;
        }
        const done = () => {
          clearTimeout(timer);
          resolve(result);
        };
        if (result.ready || this.viewerReady) done();
        else this.readyWaiters.push(done);
      });
    });
    return this.readyPromise;
  }

  /** What api.init answered (null before). */
  get info(): ApiInitResult | null {
    return this.init;
  }

  /** Calls a function by name; rejects with ViewerApiError when the viewer answers with an error. */
  call<F extends HostFunctionName>(func: F, args?: HostArgs<F>): Promise<HostResult<F>> {
    if (this.disposed) return Promise.reject(new ViewerApiError('The client was disposed.', func));
    const requestId = `r${++this.nextId}`;
    return new Promise<HostResult<F>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        reject(new ViewerApiError(`${func} got no answer within ${this.timeoutMs} ms.`, func));
      }, this.timeoutMs);
      this.pending.set(requestId, { resolve: resolve as (v: unknown) => void, reject, func, timer });
      this.post({ type: 'api.request', requestId, func, arguments: args ?? {}, ...(this.instanceId ? { instanceId: this.instanceId } : {}) });
    });
  }

  /** Listens to an event ('*': every event); returns the unsubscription. */
  on<E extends HostEventName>(event: E, listener: (data: HostEventData<E>, event: E) => void): () => void;
  on(event: '*', listener: (data: unknown, event: HostEventName) => void): () => void;
  on(event: string, listener: (data: never, event: never) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as Listener);
    return () => set.delete(listener as Listener);
  }

  dispose(): void {
    this.disposed = true;
    window.removeEventListener('message', this.onMessage);
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new ViewerApiError('The client was disposed.', p.func));
    }
    this.pending.clear();
    this.listeners.clear();
  }

  private restart(): void {
    if (!this.init && !this.viewerReady) return;
    this.init = null;
    this.viewerReady = false;
    this.instanceId = this.chosenInstanceId;
  }

  private sendInit(): void {
    if (this.init) return;
    this.post({ type: 'api.init', ...(this.instanceId ? { instanceId: this.instanceId } : {}) });
  }

  private post(message: unknown): void {
    const target = this.iframe.contentWindow;
    if (!target) return;
    target.postMessage(message, this.origin);
  }

  private receive(event: MessageEvent): void {
    if (event.source !== this.iframe.contentWindow || event.origin !== this.origin) return;
    const data = event.data as ApiResponse | ApiInitResult | ApiEventMessage | LifecycleMessage | null;
    if (!data || typeof data !== 'object' || typeof data.type !== 'string') return;
    // The iframe's viewer started again (a reload, a new navigation): it has no subscribers and,
    // unless this page chose one, a new instance id. Start over with it.
    if (data.type === 'viewerinit') this.restart();
    // A refusal names no instance (the viewer does not tell a page it refuses who it is); it comes
    // from this iframe's window, which is checked above.
    const refusal = data.type === 'api.init.result' && !!data.error && data.instanceId === '';
    if (this.instanceId && 'instanceId' in data && data.instanceId !== this.instanceId && !refusal) return;
    switch (data.type) {
      case 'api.init.result': {
        if (this.init) return;
        this.init = data;
        this.instanceId ??= data.instanceId;
        for (const waiter of this.initWaiters.splice(0)) waiter(data);
        return;
      }
      case 'viewerready':
        this.viewerReady = true;
        for (const waiter of this.readyWaiters.splice(0)) waiter();
        this.dispatch('viewerready', { sceneId: data.sceneId });
        return;
      case 'viewerinit':
        // The viewer (re)started: a page loaded later than this client may have missed api.init.
        this.sendInit();
        this.dispatch('viewerinit', { sceneId: data.sceneId });
        return;
      case 'api.response': {
        const key = data.requestId === null ? null : String(data.requestId);
        const pending = key === null ? undefined : this.pending.get(key);
        if (!pending || key === null) return;
        this.pending.delete(key);
        clearTimeout(pending.timer);
        if ('error' in data) pending.reject(new ViewerApiError(data.error, pending.func));
        else pending.resolve(data.response);
        return;
      }
      case 'api.event':
        this.dispatch(data.event, data.data);
        return;
    }
  }

  private dispatch(event: string, data: unknown): void {
    for (const key of [event, '*']) {
      const set = this.listeners.get(key);
      if (!set) continue;
      for (const listener of [...set]) {
        try {
          (listener as (d: unknown, e: string) => void)(data, event);
        } catch (error) {
          console.error(`A listener of the viewer's '${event}' event failed:`, error);
        }
      }
    }
  }
}
