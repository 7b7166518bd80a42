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
  /** What `key` used in the window ending `now`. */
  used(key: string, now?: number): number;
  /** Gives back `amount` taken at the latest take of `key` (a refused upload does not count). */
  giveBack(key: string, amount: number): void;
  /** Keys tracked now (for tests). */
  readonly size: number;
}

interface Use {
  at: number;
  amount: number;
}

export function createRateWindow(options: { windowMs: number; limit: number }): RateWindow {
  const { windowMs, limit } = options;
  const uses = new Map<string, Use[]>();
  let nextSweep = 0;

  const live = (key: string, now: number): Use[] | undefined => {
    const list = uses.get(key);
    if (!list) return undefined;
    let expired = 0;
    while (expired < list.length && list[expired].at <= now - windowMs) expired++;
    if (expired > 0) list.splice(0, expired);
    if (list.length === 0) {
      uses.delete(key);
      return undefined;
    }
    return list;
  };

  const sweep = (now: number) => {
    if (now < nextSweep) return;
    nextSweep = now + windowMs;
    for (const key of [...uses.keys()]) live(key, now);
  };

  const total = (list: Use[] | undefined) => (list ? list.reduce((sum, use) => sum + use.amount, 0) : 0);

  return {
    take(key, amount = 1, now = Date.now()) {
      sweep(now);
      const list = live(key, now);
      const used = total(list);
      if (used + amount <= limit) {
        if (list) list.push({ at: now, amount });
        else uses.set(key, [{ at: now, amount }]);
        return { ok: true };
      }
      if (amount > limit || !list) return { ok: false, retryAfterS: Math.ceil(windowMs / 1000), used };
      // The earliest moment enough has expired for `amount` to fit.
      let freed = 0;
      let until = now + windowMs;
      for (const use of list) {
        freed += use.amount;
        if (used - freed + amount <= limit) {
          until = use.at + windowMs;
          break;
        }
      }
      return { ok: false, retryAfterS: Math.max(1, Math.ceil((until - now) / 1000)), used };
    },
    used(key, now = Date.now()) {
      return total(live(key, now));
    },
    giveBack(key, amount) {
      const list = uses.get(key);
      if (!list || list.length === 0) return;
      const last = list[list.length - 1];
      last.amount = Math.max(0, last.amount - amount);
    },
    get size() {
      return uses.size;
    },
  };
}
