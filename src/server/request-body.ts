import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from './routes/http.ts';

/**
 * The life of a request's body (issue 33, items 1 and 4). Everything a request creates to read its
 * body, a timer and a stream, belongs to the request and is released when its response ends,
 * however it ends: answered before the body was read (413, 415, 401, 404...), answered after it,
 * timed out, or the client gone. And a body the server will not read is still taken off the wire
 * before the answer goes out (except after a 408), so that a client that sends its whole body
 * before it reads (Node's fetch, most HTTP libraries) reads the answer instead of a reset.
 */

/**
 * The body of `request` through a stream of our own that fails with 408 when the whole body has not
 * arrived within `timeoutMs` (without destroying the socket under the answer; the answer then closes
 * the connection). The timer and the stream are released when the response ends, whoever answered,
 * and the stream's errors always have a listener: an error that no parser waits for any more is
 * dropped here, never left to end the process.
 */
export function bodyWithDeadline(reply: FastifyReply, payload: Readable, timeoutMs: number): Readable {
  const body = new PassThrough();
  // The parser listens while it reads; after an early answer nobody does, and an unheard error
  // would be an uncaught exception.
  body.on('error', () => {});
  let timer: NodeJS.Timeout | undefined = setTimeout(() => {
    timer = undefined;
    if (!reply.sent) reply.header('connection', 'close');
    payload.unpipe(body);
    body.destroy(new HttpError(408, `The request body did not arrive within ${Math.round(timeoutMs / 1000)} s`));
  }, timeoutMs);
  timer.unref();
  const stopTimer = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const release = () => {
    stopTimer();
    payload.unpipe(body);
    body.destroy();
  };
  payload.once('end', stopTimer);
  payload.once('close', stopTimer);
  payload.on('error', (error) => {
    stopTimer();
    body.destroy(error);
  });
  // 'close' comes once the answer is sent or the connection is gone, in every case (and may have
  // come already, while an earlier hook waited).
  if (reply.raw.destroyed || reply.request.raw.socket?.destroyed) release();
  else reply.raw.once('close', release);
  return payload.pipe(body);
}

/** The body length a request declares (Content-Length), or undefined (none, or not a number). */
export function declaredLength(request: Pick<FastifyRequest, 'headers'>): number | undefined {
  const declared = Number(request.headers['content-length']);
  return Number.isFinite(declared) ? declared : undefined;
}

/** At least this much of a body is read and thrown away past its route's limit before answering. */
export const MIN_DRAIN_BYTES = 64 * 1024 * 1024;

/**
 * How much of a body the server reads and throws away past its route's limit before answering
 * (a body declared larger is answered at once and its connection closed): the limit again, and at
 * least MIN_DRAIN_BYTES. So a body up to twice the limit (and any JSON body up to 64 MiB) always
 * gets its answer read. Reading costs the server bandwidth only, and the time is bounded too.
 */
export function drainAllowance(limit: number): number {
  return Math.max(limit, MIN_DRAIN_BYTES);
}

/**
 * Reads and discards what is left of `raw`, at most `maxBytes` more and for at most `timeoutMs`.
 * True when the body ended; false when it was cut short (too much, too slow, the client gone), and
 * the connection is then closed with the answer.
 */
export function discardBody(raw: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<boolean> {
  if (raw.complete) return Promise.resolve(true);
  if (raw.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', onEnd);
      raw.off('close', onClose);
      raw.off('error', onClose);
      if (!ended) raw.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(raw.complete);
    const timer = setTimeout(() => finish(false), timeoutMs);
    timer.unref();
    raw.on('data', onData);
    raw.once('end', onEnd);
    raw.once('close', onClose);
    raw.once('error', onClose);
    // Whatever was reading it (our deadline stream, a multipart parser) has stopped.
    raw.unpipe();
    raw.resume();
  });
}

/**
 * Before an answer goes out with its body unread: take the rest of the body off the wire (up to the
 * route's limit again, within `timeoutMs`), so the client reads the answer. A body declared larger
 * than that, one that timed out, or one cut short gets the answer at once and a closed connection.
 */
export async function drainBeforeAnswer(request: FastifyRequest, reply: FastifyReply, limit: number, timeoutMs: number): Promise<void> {
  const raw = request.raw;
  if (raw.complete || raw.destroyed || reply.raw.destroyed) return;
  // A body that came too slowly is not waited for again.
  if (reply.statusCode === 408) return;
  const allowance = limit + drainAllowance(limit);
  if ((declaredLength(request) ?? 0) > allowance) {
    reply.header('connection', 'close');
    return;
  }
  const ended = await discardBody(raw, allowance, timeoutMs);
  if (!ended) reply.header('connection', 'close');
}
