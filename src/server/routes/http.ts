import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { describeZodError } from '../../protocol/mutation.ts';
import { isValidId } from '../store.ts';

/** Helpers shared by the route plugins: errors as values with a status, checked bodies and ids. */

export class HttpError extends Error {
  readonly statusCode: number;
  constructor(statusCode: number, message: string) {
    super(message);
    this.name = 'HttpError';
    this.statusCode = statusCode;
  }
}

/** Every error answer: JSON `{ error }`, never cached. */
export function sendError(reply: FastifyReply, statusCode: number, message: string): FastifyReply {
  return reply.code(statusCode).header('cache-control', 'no-store').type('application/json; charset=utf-8').send({ error: message });
}

/**
 * `Retry-After` for a refusal that says when to come back (a quota's 429, a full queue's 503: errors
 * with `retryAfterS`).
 */
export function setRetryAfter(reply: FastifyReply, error: unknown, status: number): void {
  const retryAfterS = (error as { retryAfterS?: unknown } | null)?.retryAfterS;
  if (typeof retryAfterS === 'number' && (status === 429 || status === 503)) reply.header('retry-after', String(retryAfterS));
}

export function checkId(kind: string, id: string): void {
  if (!isValidId(id)) throw new HttpError(400, `Invalid ${kind} id '${id}': use 1-64 characters of A-Z a-z 0-9 _ -`);
}

/** The body parsed by `schema`, or a 400 naming the fields that are wrong. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (body === undefined || body === null) throw new HttpError(400, 'The request needs a JSON body (Content-Type: application/json)');
  const result = schema.safeParse(body);
  if (!result.success) throw new HttpError(400, `Invalid request: ${describeZodError(result.error)}`);
  return result.data;
}
