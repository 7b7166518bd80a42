import {
  accessFor,
  ApiInitMessage,
  ApiRequestMessage,
  describeArgumentsError,
  HOST_API_VERSION,
  HOST_FUNCTION_NAMES,
  HOST_FUNCTIONS,
  InstanceId,
  isHostFunction,
  normalizeHostOrigins,
  RequestId,
  type Access,
  type ApiInitResult,
  type ApiResponse,
  type HostEventName,
  type HostFunctionName,
  type ViewerToHostMessage,
} from '../protocol/host-api';

/**
 * The host-page API's transport (editor specification sections 6-7, DESIGN.md 4.3): window
 * messages in, checked, answered. Every message passes its schema (src/protocol/host-api.ts) and
 * the scene's allowlist of host origins before anything runs; a request that fails either is
 * answered with an error naming the problem. Nothing a page sends can throw out of here: the
 * listener catches everything and reports it as an error answer.
 *
 * The functions themselves run through `execute` (src/viewer/viewer-api.ts queues them as scene
 * messages, applied by the message system at its slot of the frame). The changes of one page (one
 * origin in one window) run in the order sent, each after the one before it was answered (a change
 * may take longer than its frame: setAuthToken asks the model service); see Lane.
 */

export interface MessageTarget {
  postMessage(message: unknown, targetOrigin: string): void;
}

export interface MessageSource {
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
}

export interface HostApiOptions {
  /** The viewer's own window: where host messages arrive. */
  self: MessageSource;
  /** The embedding page (window.parent), null when the viewer is not framed. */
  parent: MessageTarget | null;
  /** The viewer's origin: a page of the same origin may always do everything. */
  selfOrigin: string;
  sceneId: string;
  /** From the iframe URL (`?instanceId=`); else the first api.init's, else generated. */
  instanceId?: string | null;
  /** Errors of the API itself (a reply that could not be posted): console.error by default. */
  report?: (message: string, error?: unknown) => void;
  /** A page began to listen (its api.init was answered): `tell` sends an event to that page alone. */
  onListen?: (origin: string, tell: (event: HostEventName, data: unknown) => void) => void;
}

export type Execute = (func: HostFunctionName, args: unknown) => Promise<unknown>;

export interface HostApi {
  readonly instanceId: string;
  /** The scene's hostOrigins (undefined or []: the open default); requests wait until this is known. */
  setOrigins(origins: readonly string[] | undefined): void;
  /** The viewer is ready: requests run through `execute` from now on. */
  ready(execute: Execute): void;
  /** The viewer could not start: waiting and later requests are answered with this reason. */
  fail(reason: string): void;
  /** viewerinit / viewerready to the embedding page (to the allowed origins only). */
  lifecycle(type: 'viewerinit' | 'viewerready'): void;
  /** An api.event to every page that called api.init and may hear events. */
  emit(event: HostEventName, data: unknown): void;
  /** Whether any page listens (so event producers can skip their work). */
  readonly listening: boolean;
  /** Handles one message as the listener does (for tests). */
  handle(data: unknown, origin: string, source: MessageTarget | null): void;
  dispose(): void;
}

/** Requests held while the allowlist is not known yet (the scene document is loading). */
export const MAX_PENDING_REQUESTS = 1000;
/** Requests of one origin that may wait for their answers at once (a picture takes seconds). */
export const MAX_IN_FLIGHT = 32;

export const NOT_READY = 'The viewer is not ready yet: wait for the viewerready message.';
/** The answer to a request that waited behind a change of its page when the viewer stopped. */
export const CLOSED = 'The viewer stopped before this request could run.';

/**
 * One page's requests (one origin in one window) in the order sent: its changes run one at a time,
 * each once the one before is answered, and a read sent behind a change waits for it (so it sees
 * the change); a read sent while none is waiting runs at once, and reads never hold the lane.
 */
interface Lane {
  /** A change of the page is running (until it is answered, however it ends). */
  changing: boolean;
  waiting: { change: boolean; start: () => void }[];
}

const READ_ONLY = HOST_FUNCTION_NAMES.filter((name) => HOST_FUNCTIONS[name].access === 'read');

function generateInstanceId(): string {
  const bytes = new Uint8Array(9);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function createHostApi(options: HostApiOptions): HostApi {
  const report = options.report ?? ((message: string, error?: unknown) => console.error(message, error ?? ''));
  const fromUrl = InstanceId.safeParse(options.instanceId);
  let instanceId: string | null = fromUrl.success ? fromUrl.data : null;
  let origins: readonly string[] | undefined;
  let originsKnown = false;
  let execute: Execute | null = null;
  let failure: string | null = null;
  let disposed = false;
  const pending: { data: unknown; origin: string; source: MessageTarget | null }[] = [];
  const pendingLifecycle: ('viewerinit' | 'viewerready')[] = [];
  /** Pages that called api.init, by origin (the latest window of each). */
  const subscribers = new Map<string, MessageTarget>();
  const inFlight = new Map<string, number>();
  /** Each page's requests that wait behind its changes, by window and origin. */
  const lanes = new Map<MessageTarget | null, Map<string, Lane>>();

  const id = () => (instanceId ??= generateInstanceId());

  const post = (target: MessageTarget, message: ViewerToHostMessage, origin: string) => {
    try {
      // A sandboxed page's origin is 'null', which cannot be targeted: only '*' reaches it (and
      // only the open settings let such a page in).
      target.postMessage(message, origin === 'null' ? '*' : origin);
    } catch (error) {
      report(`The viewer could not post '${message.type}' to ${origin}:`, error);
    }
  };

  const access = (origin: string): Access => accessFor(origins, origin, options.selfOrigin);

  const respond = (source: MessageTarget | null, origin: string, requestId: ApiResponse['requestId'], outcome: { response: unknown } | { error: string }) => {
    if (!source) return;
    post(source, { type: 'api.response', instanceId: id(), requestId, ...outcome } as ApiResponse, origin);
  };

  const denied = (origin: string) =>
    `The page at ${origin} may not use this viewer's API: the scene's owner has not listed it in the scene's hostOrigins.`;

  const init = (data: unknown, origin: string, source: MessageTarget | null) => {
    const parsed = ApiInitMessage.safeParse(data);
    let listens = false;
    const result: ApiInitResult = { type: 'api.init.result', instanceId: '', version: HOST_API_VERSION, functions: [], readOnly: [], mayChange: false, ready: false };
    const level = access(origin);
    if (level === 'none') {
      // A page that may not use the API neither names the viewer nor learns its name.
      result.error = denied(origin);
    } else if (!parsed.success) {
      result.error = `Malformed api.init: ${describeArgumentsError(parsed.error).replace(/^arguments\.?/, '').replace(/^: /, '')}`;
      result.instanceId = id();
    } else if (parsed.data.instanceId && instanceId && parsed.data.instanceId !== instanceId) {
      result.error = `This viewer's instanceId is '${instanceId}', not '${parsed.data.instanceId}'.`;
      result.instanceId = id();
    } else {
      if (parsed.data.instanceId && !instanceId) instanceId = parsed.data.instanceId;
      result.functions = [...HOST_FUNCTION_NAMES];
      result.readOnly = [...READ_ONLY];
      result.mayChange = level === 'all';
      result.ready = execute !== null;
      result.instanceId = id();
      if (source) {
        listens = subscribers.get(origin) !== source;
        subscribers.set(origin, source);
      }
    }
    if (source) post(source, result, origin);
    if (listens && source) {
      options.onListen?.(origin, (event, data) => {
        if (!disposed && subscribers.get(origin) === source) post(source, { type: 'api.event' as const, instanceId: id(), event, data }, origin);
      });
    }
  };

  const request = (data: unknown, origin: string, source: MessageTarget | null) => {
    const parsed = ApiRequestMessage.safeParse(data);
    if (!parsed.success) {
      const raw = data as { requestId?: unknown };
      const requestId = RequestId.safeParse(raw.requestId);
      const problems = parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.map(String).join('.') || 'message'}: ${issue.message}`)
        .join('; ');
      respond(source, origin, requestId.success ? requestId.data : null, { error: `Malformed api.request (${problems}): expected { type: 'api.request', requestId, func, arguments }.` });
      return;
    }
    const { requestId, func, instanceId: target } = parsed.data;
    const fail = (error: string) => respond(source, origin, requestId, { error });
    if (target && instanceId && target !== instanceId) return fail(`This viewer's instanceId is '${instanceId}', not '${target}'.`);
    const level = access(origin);
    if (level === 'none') return fail(denied(origin));
    if (!isHostFunction(func)) return fail(`Unknown function '${func}'. api.init lists the functions.`);
    const spec = HOST_FUNCTIONS[func];
    if (spec.access === 'change' && level !== 'all') {
      return fail(`'${func}' changes the scene, and the page at ${origin} may only read: the scene's owner may add it to the scene's hostOrigins.`);
    }
    const args = spec.args.safeParse(parsed.data.arguments ?? {});
    if (!args.success) return fail(`${func}: ${describeArgumentsError(args.error)}`);
    if (failure) return fail(failure);
    if (!execute) return fail(NOT_READY);
    const busy = inFlight.get(origin) ?? 0;
    if (busy >= MAX_IN_FLIGHT) return fail(`The page at ${origin} has ${busy} requests waiting for an answer; send more after they are answered.`);
    inFlight.set(origin, busy + 1);
    const change = spec.access === 'change';
    const settled = () => {
      const left = (inFlight.get(origin) ?? 1) - 1;
      if (left > 0) inFlight.set(origin, left);
      else inFlight.delete(origin);
    };
    let lane: Lane | undefined;
    const finish = (outcome: { response: unknown } | { error: string }) => {
      settled();
      respond(source, origin, requestId, outcome);
      if (change && lane) {
        lane.changing = false;
        drain(lane, source, origin);
      }
    };
    const start = () => {
      // The viewer may have stopped while this waited behind the page's changes.
      if (disposed) return finish({ error: CLOSED });
      const run = execute;
      if (!run) return finish({ error: failure ?? NOT_READY });
      let running: Promise<unknown>;
      try {
        running = Promise.resolve(run(func, args.data));
      } catch (error) {
        return finish({ error: `${func} failed: ${messageOf(error)}` });
      }
      running.then(
        (response) => finish({ response: response === undefined ? null : response }),
        (error) => finish({ error: `${func} failed: ${messageOf(error)}` }),
      );
    };
    lane = lanes.get(source)?.get(origin);
    if (!change && (!lane || (!lane.changing && lane.waiting.length === 0))) {
      // A read of a page none of whose changes is waiting: answered at once.
      start();
      return;
    }
    lane ??= laneFor(source, origin);
    lane.waiting.push({ change, start });
    drain(lane, source, origin);
  };

  /** The page's lane of requests (one origin in one window). */
  const laneFor = (source: MessageTarget | null, origin: string): Lane => {
    let bySource = lanes.get(source);
    if (!bySource) lanes.set(source, (bySource = new Map()));
    let lane = bySource.get(origin);
    if (!lane) bySource.set(origin, (lane = { changing: false, waiting: [] }));
    return lane;
  };

  /**
   * Starts what may start: while no change of the page runs, the next waiting request; a change
   * holds the lane until it is answered (however it ends), a read does not. An idle lane is dropped.
   */
  const drain = (lane: Lane, source: MessageTarget | null, origin: string) => {
    while (!lane.changing && lane.waiting.length > 0) {
      const next = lane.waiting.shift()!;
      if (next.change) lane.changing = true;
      next.start();
    }
    if (!lane.changing && lane.waiting.length === 0) {
      const bySource = lanes.get(source);
      if (bySource?.get(origin) === lane) {
        bySource.delete(origin);
        if (bySource.size === 0) lanes.delete(source);
      }
    }
  };

  const handle = (data: unknown, origin: string, source: MessageTarget | null) => {
    if (disposed) return;
    // Only our message types: a page's other scripts (and browser extensions) post messages too.
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return;
    const type = (data as { type?: unknown }).type;
    if (type !== 'api.init' && type !== 'api.request') return;
    if (typeof origin !== 'string') return;
    if (!originsKnown && !failure) {
      if (pending.length >= MAX_PENDING_REQUESTS) {
        const dropped = pending.shift()!;
        const requestId = RequestId.safeParse((dropped.data as { requestId?: unknown }).requestId);
        respond(dropped.source, dropped.origin, requestId.success ? requestId.data : null, { error: `The viewer is still loading and more than ${MAX_PENDING_REQUESTS} requests were waiting: this one was dropped.` });
      }
      pending.push({ data, origin, source });
      return;
    }
    try {
      if (type === 'api.init') init(data, origin, source);
      else request(data, origin, source);
    } catch (error) {
      // A bug of ours, never the page's fault: still answered.
      report('The host API failed on a message:', error);
      const requestId = RequestId.safeParse((data as { requestId?: unknown }).requestId);
      respond(source, origin, requestId.success ? requestId.data : null, { error: `The viewer could not handle the message: ${messageOf(error)}` });
    }
  };

  const listener = (event: MessageEvent) => {
    try {
      handle(event.data, event.origin, (event.source as MessageTarget | null) ?? null);
    } catch (error) {
      report('The host API failed on a message:', error);
    }
  };
  options.self.addEventListener('message', listener);

  const postLifecycle = (type: 'viewerinit' | 'viewerready') => {
    if (!options.parent) return;
    const message = { type, instanceId: id(), sceneId: options.sceneId };
    if (origins === undefined || origins.includes('*')) post(options.parent, message, '*');
    else {
      // Each listed origin as the target: the browser delivers only to the one the parent has.
      for (const origin of new Set([options.selfOrigin, ...origins])) post(options.parent, message, origin);
    }
  };

  const flush = () => {
    for (const type of pendingLifecycle.splice(0)) postLifecycle(type);
    for (const item of pending.splice(0)) handle(item.data, item.origin, item.source);
  };

  return {
    get instanceId() {
      return id();
    },
    setOrigins(list) {
      origins = normalizeHostOrigins(list);
      originsKnown = true;
      // Pages that were allowed and no longer are stop hearing events.
      for (const origin of [...subscribers.keys()]) if (access(origin) === 'none') subscribers.delete(origin);
      flush();
    },
    ready(run) {
      execute = run;
    },
    fail(reason) {
      failure = reason;
      execute = null;
      flush();
    },
    lifecycle(type) {
      if (!originsKnown) pendingLifecycle.push(type);
      else postLifecycle(type);
    },
    emit(event, data) {
      if (disposed) return;
      const message = { type: 'api.event' as const, instanceId: id(), event, data };
      for (const [origin, target] of subscribers) post(target, message, origin);
    },
    get listening() {
      return subscribers.size > 0;
    },
    handle,
    dispose() {
      disposed = true;
      options.self.removeEventListener('message', listener);
      subscribers.clear();
      pending.length = 0;
      // What waits behind a change of its page never runs: each is answered that the viewer stopped.
      const waiting = [...lanes.values()].flatMap((bySource) => [...bySource.values()]);
      lanes.clear();
      for (const lane of waiting) for (const item of lane.waiting.splice(0)) item.start();
    },
  };
}

export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
