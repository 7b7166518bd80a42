import type { HostApi, HostApiOptions, MessageTarget } from './host-api';

/**
 * The host-page API while its chunk downloads. The transport, its schemas and the viewer functions
 * (src/api/host-page.ts) are a chunk of their own, so the embed's first download carries only this
 * (issue 9: the API client arrives as its own chunk). The chunk is fetched at once, in parallel
 * with the scene; until it is there, this keeps everything in order and loses nothing: window
 * messages (api.init, api.request) are held with their origin and source, and the calls the
 * embed makes (origins, ready, fail, lifecycle) are replayed in the order they were made (other
 * window messages, not the API's, are left alone). Events
 * are dropped, as the real API drops them while no page listens (no api.init can have been
 * answered yet).
 *
 * If the chunk cannot be loaded, `report` says so, held messages are dropped, and later calls do
 * nothing: the viewer keeps working without its host API.
 */

/** Messages held while the chunk loads; further ones are dropped with one report. */
export const MAX_HELD_MESSAGES = 1000;

type Step = (api: HostApi) => void;

export function createDeferredHostApi(
  options: HostApiOptions,
  load: Promise<(options: HostApiOptions) => HostApi>,
  report: (message: string, error?: unknown) => void = (message, error) => console.error(message, error),
): HostApi {
  let real: HostApi | null = null;
  let failed = false;
  let disposed = false;
  let dropped = false;
  const steps: Step[] = [];
  let held = 0;

  const hold = (event: MessageEvent) => {
    // Only the API's own messages are held: other window traffic (extensions, other scripts) is not ours to keep.
    const type = typeof event.data === 'object' && event.data !== null ? (event.data as { type?: unknown }).type : undefined;
    if (type !== 'api.init' && type !== 'api.request') return;
    if (held >= MAX_HELD_MESSAGES) {
      if (!dropped) report(`The host-page API is still loading: messages beyond ${MAX_HELD_MESSAGES} are dropped.`);
      dropped = true;
      return;
    }
    held++;
    const { data, origin, source } = event;
    steps.push((api) => api.handle(data, origin, source as MessageTarget | null));
  };
  options.self.addEventListener('message', hold);

  const step = (run: Step) => {
    if (real) run(real);
    else if (!failed && !disposed) steps.push(run);
  };

  load.then(
    (createHostApi) => {
      options.self.removeEventListener('message', hold);
      if (disposed) return;
      const api = createHostApi(options);
      real = api;
      for (const run of steps.splice(0)) run(api);
    },
    (error: unknown) => {
      options.self.removeEventListener('message', hold);
      failed = true;
      steps.length = 0;
      if (!disposed) report('The host-page API could not be loaded: host pages cannot drive this viewer.', error);
    },
  );

  return {
    get instanceId() {
      return real?.instanceId ?? options.instanceId ?? '';
    },
    get listening() {
      return real?.listening ?? false;
    },
    setOrigins: (origins) => step((api) => api.setOrigins(origins)),
    ready: (execute) => step((api) => api.ready(execute)),
    fail: (reason) => step((api) => api.fail(reason)),
    lifecycle: (type) => step((api) => api.lifecycle(type)),
    emit: (event, data) => real?.emit(event, data),
    handle: (data, origin, source) => step((api) => api.handle(data, origin, source)),
    dispose() {
      disposed = true;
      steps.length = 0;
      options.self.removeEventListener('message', hold);
      real?.dispose();
      real = null;
    },
  };
}
