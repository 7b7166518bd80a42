import type { Socket } from 'node:net';
import type { Connection } from './rooms.ts';

/** The meeting hub's (hub.ts) socket helpers: close texts, per-key counts, refusals' log lines, corked writes. */

/** WebSocket close reasons are at most 123 bytes. */
export function reasonText(text: string): string {
  const bytes = Buffer.from(text);
  return bytes.length <= 123
    ? text
    : bytes
        .subarray(0, 120)
        .toString('utf8')
        .replace(/\uFFFD+$/, '') + '...';
}

/** '5 s'; under a second (tests' short limits) '300 ms'. */
export function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`;
}

/** One fewer of `key` (forgotten at zero, so the maps hold only who has sockets now). */
export function release(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 0) - 1;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

/**
 * When a refusal for too many sockets was last logged, per address or person: a flood logs once a
 * minute, with how many refusals it left out.
 */
export class RefusalLog {
  private readonly logged = new Map<string, { at: number; since: number }>();

  /** Null when a refusal of `who` at `now` goes unlogged (counted); else the line's tail ('' or how many were left out). */
  due(who: string, now: number): string | null {
    const logged = this.logged.get(who);
    if (logged && now - logged.at < 60_000) {
      logged.since++;
      return null;
    }
    this.logged.set(who, { at: now, since: 0 });
    if (this.logged.size > 10_000) for (const [key, value] of this.logged) if (now - value.at >= 60_000) this.logged.delete(key);
    return logged && logged.since > 0 ? ` (and ${logged.since} more since the last such line)` : '';
  }
}

/**
 * Sockets corked in this turn of the event loop: a meeting of 64 sends each person 63 frames per
 * 50 ms, and one write system call per frame is most of the relay's cost. Frames sent to a socket
 * in one turn leave in one write when the turn ends (setImmediate), without changing a byte of
 * the wire format.
 */
export class SocketCorks {
  private readonly corked: { conn: Connection; socket: Socket }[] = [];
  private flushScheduled = false;
  private readonly flush = () => {
    this.flushScheduled = false;
    for (const { conn, socket } of this.corked.splice(0)) {
      conn.corked = false;
      socket.uncork();
    }
  };

  /** Corks `conn`'s TCP socket until the end of this turn (once per turn). */
  cork(conn: Connection): void {
    if (conn.corked) return;
    // ws keeps the TCP socket in a private field; without it (another implementation) frames go out one by one.
    const socket = (conn.ws as unknown as { _socket?: Socket | null })._socket;
    if (!socket || socket.destroyed) return;
    socket.cork();
    conn.corked = true;
    this.corked.push({ conn, socket });
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(this.flush);
    }
  }
}
