/**
 * How meeting servers in several processes hear each other (DESIGN.md section 5): a channel per
 * meeting. The in-process bus (the default: `npm start` needs no Redis) has nobody to talk to; the
 * Redis bus publishes on `meetings:{room}` through Redis pub/sub. A process subscribes to a
 * meeting's channel only while it holds a client of that meeting.
 */

export interface MeetingBus {
  /** 'local' or 'redis'. */
  readonly kind: string;
  /** Starts hearing a meeting's channel; `listener` gets every message published there (our own too). */
  subscribe(room: string, listener: (message: string) => void): Promise<void>;
  unsubscribe(room: string): Promise<void>;
  /** Publishes to a meeting's channel. Never throws: a failure is reported through `onError`. */
  publish(room: string, message: string): void;
  close(): Promise<void>;
}

/** One process: nothing to link. */
export function createLocalBus(): MeetingBus {
  return {
    kind: 'local',
    async subscribe() {},
    async unsubscribe() {},
    publish() {},
    async close() {},
  };
}

export const CHANNEL_PREFIX = 'meetings:';

export interface RedisBusOptions {
  /** A redis:// or rediss:// URL (REDIS_URL). */
  url: string;
  /** Problems with the connection (logged by the caller); the clients reconnect by themselves. */
  onError?: (error: Error) => void;
}

/**
 * The Redis bus: one connection publishes, a second one subscribes (a subscribed Redis connection
 * can do nothing else). Resolves once both are connected; rejects with a clear message otherwise.
 */
export async function createRedisBus(options: RedisBusOptions): Promise<MeetingBus> {
  const onError = options.onError ?? ((error: Error) => console.error(`meetings: Redis: ${error.message}`));
  // The first connection fails at once with its reason; a connection lost later is retried.
  let connected = false;
  // The client library loads only where meetings go through Redis.
  const { createClient } = await import('redis');
  const publisher = createClient({
    url: options.url,
    socket: { connectTimeout: 5000, reconnectStrategy: (retries: number, cause: Error) => (connected ? Math.min(100 * 2 ** retries, 5000) : cause) },
  });
  const subscriber = publisher.duplicate();
  for (const client of [publisher, subscriber]) {
    client.on('error', (error: Error) => {
      if (connected) onError(error);
    });
  }
  try {
    await Promise.all([publisher.connect(), subscriber.connect()]);
  } catch (error) {
    await Promise.allSettled([publisher.destroy(), subscriber.destroy()]);
    throw new Error(`cannot connect to Redis at ${redactUrl(options.url)}: ${(error as Error).message}`);
  }
  connected = true;
  const listeners = new Map<string, (message: string) => void>();
  // One channel's SUBSCRIBE and UNSUBSCRIBE run one after the other: a meeting that empties and is
  // joined again at once must not have its new subscription undone by the old one's UNSUBSCRIBE.
  const queues = new Map<string, Promise<void>>();
  const inOrder = (channel: string, op: () => Promise<unknown>): Promise<void> => {
    const next = (queues.get(channel) ?? Promise.resolve()).then(op, op).then(() => undefined);
    queues.set(channel, next);
    const forget = () => {
      if (queues.get(channel) === next) queues.delete(channel);
    };
    next.then(forget, forget);
    return next;
  };
  return {
    kind: 'redis',
    subscribe(room, listener) {
      const channel = CHANNEL_PREFIX + room;
      listeners.set(channel, listener);
      return inOrder(channel, () => subscriber.subscribe(channel, (message: string) => listeners.get(channel)?.(message)));
    },
    unsubscribe(room) {
      const channel = CHANNEL_PREFIX + room;
      listeners.delete(channel);
      return inOrder(channel, () => subscriber.unsubscribe(channel));
    },
    publish(room, message) {
      publisher.publish(CHANNEL_PREFIX + room, message).catch((error: Error) => onError(new Error(`publishing to ${room} failed: ${error.message}`)));
    },
    async close() {
      connected = false;
      await Promise.allSettled([publisher.close(), subscriber.close()]);
    },
  };
}

/** A Redis URL without its password (for messages). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an invalid URL)';
  }
}
