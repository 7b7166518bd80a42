import WebSocket from 'ws';
import type { ServerMessage } from '../../../src/protocol/meeting.ts';

/**
 * A meeting client for the service tests and the benchmark: a real socket, every frame kept in
 * order, and waits for the next frame that matches.
 */
export class TestClient {
  readonly ws: WebSocket;
  readonly received: ServerMessage[] = [];
  closed: { code: number; reason: string } | null = null;
  private waiters: { test: (m: ServerMessage) => boolean; resolve: (m: ServerMessage) => void; from: number }[] = [];
  private closeWaiters: ((c: { code: number; reason: string }) => void)[] = [];
  readonly opened: Promise<void>;

  constructor(url: string, headers: Record<string, string> = {}) {
    this.ws = new WebSocket(url, { headers });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
      this.ws.once('error', reject);
    });
    this.opened.catch(() => undefined);
    this.ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as ServerMessage;
      this.received.push(message);
      const index = this.received.length - 1;
      this.waiters = this.waiters.filter((w) => {
        if (index >= w.from && w.test(message)) {
          w.resolve(message);
          return false;
        }
        return true;
      });
    });
    this.ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      for (const w of this.closeWaiters) w(this.closed);
      this.closeWaiters = [];
    });
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The first frame (already received or coming) of `type` matching `test`, from index `from`. */
  next<T extends ServerMessage['type']>(type: T, test: (m: Extract<ServerMessage, { type: T }>) => boolean = () => true, timeoutMs = 5000, from = 0): Promise<Extract<ServerMessage, { type: T }>> {
    const match = (m: ServerMessage) => m.type === type && test(m as Extract<ServerMessage, { type: T }>);
    for (let i = from; i < this.received.length; i++) {
      if (match(this.received[i])) return Promise.resolve(this.received[i] as Extract<ServerMessage, { type: T }>);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} within ${timeoutMs} ms; got ${this.received.map((m) => m.type).join(', ')}`)), timeoutMs);
      this.waiters.push({
        test: match,
        from,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m as Extract<ServerMessage, { type: T }>);
        },
      });
    });
  }

  waitClosed(timeoutMs = 8000): Promise<{ code: number; reason: string }> {
    if (this.closed) return Promise.resolve(this.closed);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`socket not closed within ${timeoutMs} ms`)), timeoutMs);
      this.closeWaiters.push((c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
  }

  /** Opens, authenticates, returns the AUTH_RESPONSE's client id. */
  async join(token: string): Promise<string> {
    await this.opened;
    this.send({ type: 'AUTH_REQUEST', token });
    const auth = await this.next('AUTH_RESPONSE');
    await this.next('STATE');
    return auth.client._id;
  }

  close(): void {
    this.ws.close();
  }
}
