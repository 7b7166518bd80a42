import {
  MEETING_CLOSE,
  MEETING_FINAL_CLOSE_CODES,
  MEETING_HEARTBEAT_INTERVAL_MS,
  MEETING_RECONNECT_DELAY_MS,
  MEETING_RECONNECT_MAX_DELAY_MS,
  MEETING_TOO_MANY_RETRY_MS,
  parseServerMessage,
  type ClientMessage,
  type MeetingClient,
  type ServerMessage,
} from '../protocol/meeting';

/**
 * The meeting connection (viewer specification section 4, "Meeting connection"; DESIGN.md 4.2):
 * on open it sends AUTH_REQUEST with the token; after AUTH_RESPONSE it is connected and ready, and
 * sends STATE_REQUEST and PING every 5 s; on close it marks itself not connected and reconnects
 * after 2.5 s (after repeated failures the delay doubles, with jitter, up to 30 s). A close the
 * server says is final (a refused token, a meeting one may not join, a frame too large) stops it
 * with the server's reason. Every other close is tried again, among them the server's "try again"
 * (1001: shutting down, or it could not check the sign-in), 4001 (AUTH_REQUEST came too late: a page
 * too busy to answer the open in time) and 4029 (too many connections of this person: not before
 * MEETING_TOO_MANY_RETRY_MS). The token is had before the socket opens and AUTH_REQUEST goes in the
 * open event itself, so nothing of the page's (a scene still loading, a token generator) stands
 * between the open and the sign-in. Nothing here touches the scene: messages go to `onMessage`.
 */

export type ConnectionStatus = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'stopped';

/** What the connection needs of a WebSocket (the browser's, or a test double). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export interface ConnectionOptions {
  url: string;
  /** A fresh token for each attempt (tokens expire while a meeting goes on). */
  token: () => Promise<string>;
  onMessage: (message: ServerMessage) => void;
  onStatus?: (status: ConnectionStatus, detail: { self: MeetingClient | null; reason?: string; retryInMs?: number }) => void;
  /** A malformed frame from the server, a token that could not be had: reported, never thrown. */
  onError?: (error: Error) => void;
  createSocket?: (url: string) => SocketLike;
  /** Timers and randomness (tests). */
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (id: unknown) => void;
  setInterval?: (fn: () => void, ms: number) => unknown;
  clearInterval?: (id: unknown) => void;
  random?: () => number;
}

/** The delay before attempt `failures` (1 = the first reconnect): 2.5 s, then doubling with jitter. */
export function reconnectDelay(failures: number, random: () => number = Math.random): number {
  if (failures <= 1) return MEETING_RECONNECT_DELAY_MS;
  const base = Math.min(MEETING_RECONNECT_DELAY_MS * 2 ** (failures - 1), MEETING_RECONNECT_MAX_DELAY_MS);
  // Full jitter over the upper half: people dropped together do not all come back at once.
  return Math.round(base / 2 + random() * (base / 2));
}

export class MeetingConnection {
  status: ConnectionStatus = 'idle';
  /** This connection's client (AUTH_RESPONSE), null while not connected. */
  self: MeetingClient | null = null;
  private socket: SocketLike | null = null;
  private heartbeat: unknown = null;
  private retry: unknown = null;
  /** Attempts that closed without ever reaching AUTH_RESPONSE, in a row. */
  private failures = 0;
  private readonly o: Required<Omit<ConnectionOptions, 'onStatus' | 'onError'>> & Pick<ConnectionOptions, 'onStatus' | 'onError'>;

  constructor(options: ConnectionOptions) {
    this.o = {
      ...options,
      createSocket: options.createSocket ?? ((url) => new WebSocket(url) as unknown as SocketLike),
      setTimeout: options.setTimeout ?? ((fn, ms) => globalThis.setTimeout(fn, ms)),
      clearTimeout: options.clearTimeout ?? ((id) => globalThis.clearTimeout(id as number)),
      setInterval: options.setInterval ?? ((fn, ms) => globalThis.setInterval(fn, ms)),
      clearInterval: options.clearInterval ?? ((id) => globalThis.clearInterval(id as number)),
      random: options.random ?? Math.random,
    };
  }

  get connected(): boolean {
    return this.status === 'connected';
  }

  start(): void {
    if (this.status === 'connecting' || this.status === 'connected') return;
    this.clearRetry();
    void this.open();
  }

  /** Leaves the meeting: no reconnect. */
  stop(reason = 'left the meeting'): void {
    this.clearRetry();
    this.stopHeartbeat();
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onclose = null;
      socket.onmessage = null;
      try {
        socket.close(1000, reason);
      } catch {
        // already closed
      }
    }
    this.self = null;
    this.setStatus('stopped', { reason });
  }

  /** Sends a message when connected; false (and nothing sent) otherwise. */
  send(message: ClientMessage): boolean {
    const socket = this.socket;
    if (!socket || this.status !== 'connected' || socket.readyState !== 1) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  private async open(): Promise<void> {
    this.setStatus('connecting');
    let token: string;
    try {
      token = await this.o.token();
    } catch (error) {
      this.o.onError?.(error instanceof Error ? error : new Error(String(error)));
      this.setStatus('stopped', { reason: (error as Error).message });
      return;
    }
    if (this.status !== 'connecting') return; // stopped meanwhile
    let socket: SocketLike;
    try {
      socket = this.o.createSocket(this.o.url);
    } catch (error) {
      this.o.onError?.(error as Error);
      this.scheduleReconnect(`cannot open ${this.o.url}: ${(error as Error).message}`);
      return;
    }
    this.socket = socket;
    socket.onopen = () => socket.send(JSON.stringify({ type: 'AUTH_REQUEST', token } satisfies ClientMessage));
    socket.onmessage = (event) => this.onFrame(event.data);
    socket.onerror = () => undefined; // a close follows, with its code
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.stopHeartbeat();
      this.self = null;
      const reason = event.reason || `closed (${event.code})`;
      if (MEETING_FINAL_CLOSE_CODES.includes(event.code)) {
        this.setStatus('stopped', { reason });
        return;
      }
      // Too many connections of this person: another tab may close; asking sooner would be refused.
      this.scheduleReconnect(reason, event.code === MEETING_CLOSE.TOO_MANY ? MEETING_TOO_MANY_RETRY_MS : 0);
    };
  }

  private onFrame(data: unknown): void {
    if (typeof data !== 'string') {
      this.o.onError?.(new Error('The meeting server sent a binary frame; it was ignored.'));
      return;
    }
    const parsed = parseServerMessage(data);
    if (!parsed.ok) {
      this.o.onError?.(new Error(parsed.error));
      return;
    }
    const message = parsed.value;
    if (message.type === 'AUTH_RESPONSE') {
      this.self = message.client;
      this.failures = 0;
      this.setStatus('connected');
      this.startHeartbeat();
    }
    this.o.onMessage(message);
  }

  private startHeartbeat(): void {
    this.stopHeartbeat();
    this.heartbeat = this.o.setInterval(() => {
      this.send({ type: 'STATE_REQUEST' });
      this.send({ type: 'PING' });
    }, MEETING_HEARTBEAT_INTERVAL_MS);
  }

  private stopHeartbeat(): void {
    if (this.heartbeat !== null) this.o.clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  /** The next attempt after the backoff of this many failures, and not before `atLeastMs` (plus up to a quarter of it, jitter). */
  private scheduleReconnect(reason: string, atLeastMs = 0): void {
    this.failures++;
    let delay = reconnectDelay(this.failures, this.o.random);
    if (atLeastMs > 0) delay = Math.max(delay, atLeastMs + Math.round(this.o.random() * (atLeastMs / 4)));
    this.setStatus('reconnecting', { reason, retryInMs: delay });
    this.clearRetry();
    this.retry = this.o.setTimeout(() => {
      this.retry = null;
      void this.open();
    }, delay);
  }

  private clearRetry(): void {
    if (this.retry !== null) this.o.clearTimeout(this.retry);
    this.retry = null;
  }

  private setStatus(status: ConnectionStatus, detail: { reason?: string; retryInMs?: number } = {}): void {
    this.status = status;
    this.o.onStatus?.(status, { self: this.self, ...detail });
  }
}
