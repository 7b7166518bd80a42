/**
 * How much each key (a person, an address) used in the last `windowMs`, against a limit: a sliding
 * window over what was taken and when (issue 33: upload bytes per hour, CSP reports per minute).
 * Keys whose use has all expired are dropped, so the memory follows the keys active in one window.
 */

export interface RateWindow {
  /**
   * Takes `amount` for `key` if that keeps the key within the limit: `{ ok: true }`, else
   * `{ ok: false, retryAfterS }`, when enough of what was taken expires for `amount` to fit (never
   * for an amount over the whole limit: `retryAfterS` is then the window's length).
   */
  take(key: string, amount?: number, now?: number): { ok: true } | { ok: false; retryAfterS: number; used: number };
  /** What `take` would answer, without taking anything. */
  check(key: string, amount?: number, now?: number): { ok: true } | { ok: false; retryAfterS: number; used: number };
  /** What `key` used in the window ending `now`. */
  used(key: string, now?: number): number;
  /** Keys tracked now (for tests). */
  readonly size: number;
}

interface Use {
  at: number;
  amount: number;
}

/** A key's uses, oldest first, with their sum (so a take costs the uses that expire, not all of them). */
interface Uses {
  list: Use[];
  total: number;
}

/** Uses closer together than this are one entry: a 2 GiB upload in 64 KiB chunks is not 32,768 entries. */
const MERGE_MS = 1000;

export function createRateWindow(options: { windowMs: number; limit: number }): RateWindow {
  const { windowMs, limit } = options;
  const uses = new Map<string, Uses>();
  let nextSweep = 0;

  const live = (key: string, now: number): Uses | undefined => {
    const entry = uses.get(key);
    if (!entry) return undefined;
    let expired = 0;
    while (expired < entry.list.length && entry.list[expired].at <= now - windowMs) entry.total -= entry.list[expired++].amount;
    if (expired > 0) entry.list.splice(0, expired);
    if (entry.list.length === 0) {
      uses.delete(key);
      return undefined;
    }
    return entry;
  };

  const sweep = (now: number) => {
    if (now < nextSweep) return;
    nextSweep = now + windowMs;
    for (const key of [...uses.keys()]) live(key, now);
  };

  /** Whether `amount` more fits for a key whose live uses are `entry`, and if not, when it will. */
  const verdict = (entry: Uses | undefined, amount: number, now: number): { ok: true } | { ok: false; retryAfterS: number; used: number } => {
    const used = entry?.total ?? 0;
    if (used + amount <= limit) return { ok: true };
    if (amount > limit || !entry) return { ok: false, retryAfterS: Math.ceil(windowMs / 1000), used };
    // The earliest moment enough has expired for `amount` to fit.
    let freed = 0;
    let until = now + windowMs;
    for (const use of entry.list) {
      freed += use.amount;
      if (used - freed + amount <= limit) {
        until = use.at + windowMs;
        break;
      }
    }
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((until - now) / 1000)), used };
  };

  return {
    take(key, amount = 1, now = Date.now()) {
      sweep(now);
      const entry = live(key, now);
      const answer = verdict(entry, amount, now);
      if (!answer.ok) return answer;
      if (!entry) {
        uses.set(key, { list: [{ at: now, amount }], total: amount });
      } else {
        const last = entry.list[entry.list.length - 1];
        // Merged into the last use: it then expires a moment early, which errs towards the client.
        if (now - last.at < MERGE_MS) last.amount += amount;
        else entry.list.push({ at: now, amount });
        entry.total += amount;
      }
      return answer;
    },
    check(key, amount = 1, now = Date.now()) {
      return verdict(live(key, now), amount, now);
    },
    used(key, now = Date.now()) {
      return live(key, now)?.total ?? 0;
    },
    get size() {
      return uses.size;
    },
  };
}
