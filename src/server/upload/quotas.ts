import { createRateWindow } from '../rate-window.ts';

/**
 * Per-person limits on uploads (issue 33, item 8; README "Configuration"): uploads received or
 * processed at once (UPLOADS_IN_FLIGHT_PER_USER), bytes received in any hour (UPLOAD_BYTES_PER_HOUR:
 * models, assets and textures together, whether or not the upload then succeeds) and bytes stored
 * (STORED_BYTES_PER_USER). Each refusal is an error the client can read: 429 with Retry-After for
 * the first two, 413 with the quota for the third. Counted in this process (several processes
 * sharing DATA_DIR each count their own uploads; the stored bytes are read from the data itself).
 */

export interface QuotaLimits {
  uploadsInFlightPerUser: number;
  uploadBytesPerHour: number;
  storedBytesPerUser: number;
}

/** A refusal by a quota: 429 with `retryAfterS`, or 413. */
export class QuotaError extends Error {
  readonly statusCode: 413 | 429;
  readonly retryAfterS?: number;
  constructor(statusCode: 413 | 429, message: string, retryAfterS?: number) {
    super(message);
    this.name = 'QuotaError';
    this.statusCode = statusCode;
    if (retryAfterS !== undefined) this.retryAfterS = retryAfterS;
  }
}

/** How long a person with too many uploads at once is told to wait. */
export const IN_FLIGHT_RETRY_AFTER_S = 15;

/** `bytes` for people: '1.5 GiB', '300 MiB', '12 KiB', '80 bytes'. */
export function formatBytes(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  if (bytes < 1024) return `${bytes} bytes`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1).replace(/\.0$/, '')} ${units[unit]}`;
}

export interface UploadQuotas {
  readonly limits: QuotaLimits;
  /** A slot for one more upload of `userId` (released by the function it returns, once), or QuotaError 429. */
  claim(userId: string): () => void;
  /** QuotaError 429 unless `bytes` more (a declared length) fit in `userId`'s hour. Takes nothing. */
  checkHour(userId: string, bytes: number): void;
  /** Counts `bytes` received for `userId`: QuotaError 429 when they pass the hour's limit. */
  count(userId: string, bytes: number): void;
  /**
   * QuotaError 413 unless `adding` bytes more fit in what `userId` may store. What they store is read
   * from the data, and kept STORED_BYTES_CACHE_MS for the checks before a body (`fresh: false`), so a
   * flood of requests reads it once; the check before storing reads it afresh.
   */
  checkStored(userId: string, adding: number, options?: { fresh?: boolean }): Promise<void>;
  /** Uploads of `userId` in flight now. */
  inFlight(userId: string): number;
}

/** How long a person's stored bytes are reused by the checks made before a body is read. */
export const STORED_BYTES_CACHE_MS = 5000;

export function createUploadQuotas(limits: QuotaLimits, storedBytes: (userId: string) => Promise<number>): UploadQuotas {
  const inFlight = new Map<string, number>();
  const storedCache = new Map<string, { at: number; bytes: Promise<number> }>();
  const stored = (userId: string, fresh: boolean): Promise<number> => {
    const now = Date.now();
    const cached = storedCache.get(userId);
    if (!fresh && cached && now - cached.at < STORED_BYTES_CACHE_MS) return cached.bytes;
    if (storedCache.size > 10_000) storedCache.clear();
    const bytes = storedBytes(userId);
    storedCache.set(userId, { at: now, bytes });
    bytes.catch(() => storedCache.delete(userId));
    return bytes;
  };
  const hour = createRateWindow({ windowMs: 3600_000, limit: limits.uploadBytesPerHour });

  const hourError = (used: number, retryAfterS: number) =>
    new QuotaError(
      429,
      `You uploaded ${formatBytes(used)} in the last hour, and one person may upload at most ${formatBytes(limits.uploadBytesPerHour)} an hour (UPLOAD_BYTES_PER_HOUR): try again in ${retryAfterS} s.`,
      retryAfterS,
    );

  return {
    limits,
    claim(userId) {
      const now = inFlight.get(userId) ?? 0;
      if (now >= limits.uploadsInFlightPerUser) {
        throw new QuotaError(
          429,
          `You have ${now} uploads in progress, the most one person may have at once (UPLOADS_IN_FLIGHT_PER_USER): wait for one to finish, then send this one again.`,
          IN_FLIGHT_RETRY_AFTER_S,
        );
      }
      inFlight.set(userId, now + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (inFlight.get(userId) ?? 1) - 1;
        if (left > 0) inFlight.set(userId, left);
        else inFlight.delete(userId);
      };
    },
    checkHour(userId, bytes) {
      if (!(bytes > 0)) return;
      if (bytes > limits.uploadBytesPerHour) {
        throw new QuotaError(413, `The upload of ${formatBytes(bytes)} is larger than the ${formatBytes(limits.uploadBytesPerHour)} one person may upload in an hour (UPLOAD_BYTES_PER_HOUR).`);
      }
      const fits = hour.check(userId, bytes);
      if (!fits.ok) throw hourError(fits.used, fits.retryAfterS);
    },
    count(userId, bytes) {
      const taken = hour.take(userId, bytes);
      if (!taken.ok) {
        // What arrived still counts: the limit is on bytes received.
        hour.take(userId, Math.max(0, limits.uploadBytesPerHour - taken.used));
        throw hourError(taken.used + bytes, taken.retryAfterS);
      }
    },
    async checkStored(userId, adding, options = {}) {
      const storedNow = await stored(userId, options.fresh === true);
      if (storedNow + adding <= limits.storedBytesPerUser) return;
      throw new QuotaError(
        413,
        `Your models and assets take ${formatBytes(storedNow)} of the ${formatBytes(limits.storedBytesPerUser)} one person may store (STORED_BYTES_PER_USER), and this upload needs ${formatBytes(adding)} more: ask the server's operator for more room.`,
      );
    },
    inFlight(userId) {
      return inFlight.get(userId) ?? 0;
    },
  };
}
