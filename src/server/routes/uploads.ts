import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { once } from 'node:events';
import multipart from '@fastify/multipart';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ModelUploadResult, UploadError, UploadStatus, ValidationReport } from '../../protocol/upload.ts';
import { AuthError, canWriteScene, requireUser } from '../auth/permissions.ts';
import type { ServerConfig } from '../config.ts';
import { addModel, ImportError } from '../import.ts';
import { isValidId, type Store } from '../store.ts';
import { createUploadJobs, type UploadJobs } from '../upload/jobs.ts';
import { createUploadPool, UploadBusyError, type UploadPool, type UploadStage } from '../upload/pool.ts';
import type { ProcessedModel, ProcessOptions } from '../upload/process.ts';
import { taskError } from '../upload/errors.ts';
import { setRetryAfter } from './http.ts';
import { declaredLength } from '../request-body.ts';
import { QuotaError, createUploadQuotas, type UploadQuotas } from '../upload/quotas.ts';
import type { UploadTask, UploadTaskResult } from '../upload/worker.ts';

/**
 * POST /v1/models: upload of a model (DESIGN.md 4.4). Two forms, both streamed to a spool folder
 * (DATA_DIR/tmp/uploads) and counted against MAX_ASSET_BYTES (all files of one upload together):
 *
 * - raw body: the .glb (or a self-contained .gltf) as the body, `Content-Type: model/gltf-binary`,
 *   `model/gltf+json` or `application/octet-stream`, the file name in the `X-File-Name` header
 *   (URL-encoded) or the `fileName` query parameter; `sceneId` and `name` as query parameters.
 * - multipart/form-data: one .glb or .gltf file part (the first such), any other file parts are the
 *   files the .gltf refers to (its .bin and images, matched by file name); optional fields `sceneId`
 *   and `name`.
 *
 * The file is checked by Khronos's glTF-Validator (400 with its report when it has errors), then
 * optimised and packed into a container in a worker thread (src/server/upload/pool.ts: at most
 * UPLOAD_WORKERS at once, UPLOAD_QUEUE more wait, past that 503), and written to the derivative
 * store under a new version key. Answer: 201 with the Model document plus `sceneId`, the
 * validator's report (`validation`) and the optimisation summary. With `Prefer: respond-async`
 * the answer is 202 as soon as the file is received, with the upload's status
 * (`GET /v1/uploads/{uploadId}`: queued with its position, processing, storing, done with the
 * result, or failed with the error). Without `sceneId` a new scene owned by the uploader is
 * created; with one, the model is appended to that scene, which the uploader must be allowed to
 * change (auth/permissions.ts: its owner or an editor).
 *
 * Errors: 400 (not glTF, validator errors, bad form), 401, 403, 404 (unknown scene), 408 (the body
 * came too slowly), 413 (too large, or too complex to process within the limits), 415 (content
 * type), 422 (the optimised model failed validation: our bug), 503 (the queue is full).
 */

/** An error answer of the upload routes: `{ error, validation? }`. */
export class UploadHttpError extends Error {
  readonly statusCode: number;
  readonly validation?: ValidationReport;
  constructor(statusCode: number, message: string, validation?: ValidationReport) {
    super(message);
    this.name = 'UploadHttpError';
    this.statusCode = statusCode;
    if (validation) this.validation = validation;
  }
}

export const RAW_CONTENT_TYPES = ['model/gltf-binary', 'model/gltf+json', 'application/octet-stream'];

/** Multipart limits besides the byte limit: files per upload, form fields. */
const MAX_FILES = 256;
const MAX_FIELDS = 16;

export function tooLargeError(limit: number): UploadHttpError {
  return new UploadHttpError(413, `The upload is larger than the limit of ${limit} bytes (MAX_ASSET_BYTES): upload a smaller model, or compress it (e.g. meshopt or Draco) first.`);
}

/** The slowest accepted upload (app.ts HTTP_TIMEOUTS): `minBytesPerS` on average once `graceMs` has passed. */
export interface UploadRate {
  minBytesPerS: number;
  graceMs: number;
}

interface Counter {
  used: number;
  limit: number;
  started: number;
  rate: UploadRate;
  /** Counts each chunk against its person's hourly bytes (QuotaError 429 past them). */
  count: (bytes: number) => void;
}

/**
 * Writes a stream to `file`, failing with 413 as soon as `counter.used` passes `counter.limit` and
 * with 408 when the body comes slower than `counter.minBytesPerS` on average after the first minute.
 * A failure leaves the stream as it is: the rest of the body is taken off the wire before the
 * answer (request-body.ts), or the connection is closed with it.
 */
async function spool(stream: Readable | IncomingMessage, file: string, counter: Counter): Promise<number> {
  const out = createWriteStream(file);
  // A write still in flight when the stream is destroyed (a refusal mid-body) reports its error
  // after the destroy: heard here, never an uncaught exception. A real write error fails the upload.
  let writeError: Error | undefined;
  out.on('error', (error) => (writeError ??= error));
  let size = 0;
  try {
    for await (const chunk of stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      counter.used += chunk.length;
      size += chunk.length;
      if (counter.used > counter.limit) throw tooLargeError(counter.limit);
      counter.count(chunk.length);
      const elapsed = Date.now() - counter.started;
      if (elapsed > counter.rate.graceMs && counter.used < (elapsed / 1000) * counter.rate.minBytesPerS) {
        throw new UploadHttpError(408, `The upload came slower than ${counter.rate.minBytesPerS} bytes per second on average: try again on a faster connection.`);
      }
      if (writeError) throw writeError;
      if (!out.write(chunk)) await once(out, 'drain');
    }
    out.end();
    await finished(out);
  } catch (error) {
    // Closed before the caller removes the spool folder: a file still being opened would
    // otherwise appear after the removal and stay.
    if (!out.closed) {
      const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
      out.destroy();
      await closed;
    }
    throw error;
  }
  return size;
}

/** One upload, whichever form it came in, spooled to files in `dir`. */
export interface ReceivedUpload {
  dir: string;
  fileName: string;
  /** The spooled model file. */
  file: string;
  /** Companion files (multipart): file name -> spooled path. */
  resources: Record<string, string>;
  fields: Record<string, string>;
}

function decodeHeader(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  try {
    return decodeURIComponent(text.trim());
  } catch {
    return text.trim();
  }
}

const MODEL_FILE = /\.(glb|gltf)$/i;

function baseName(name: string, fallback: string): string {
  return name.replace(/\\/g, '/').split('/').pop() || fallback;
}

/** Where uploads are spooled while they wait and are processed: DATA_DIR/tmp/uploads. */
export function spoolRoot(config: ServerConfig): string {
  return join(config.dataDir, 'tmp', 'uploads');
}

/** Spool folders older than this were left by a process that stopped mid-upload (no upload lasts a day). */
const STALE_SPOOL_MS = 24 * 3600_000;

/**
 * Removes what stopped processes left in the spool. Only old folders: servers sharing DATA_DIR (with
 * PostgreSQL) may have uploads in progress there.
 */
export async function removeStaleSpools(root: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(root);
  } catch {
    return;
  }
  const before = Date.now() - STALE_SPOOL_MS;
  for (const entry of entries) {
    const dir = join(root, entry);
    const info = await stat(dir).catch(() => undefined);
    if (info && info.mtimeMs < before) await rm(dir, { recursive: true, force: true });
  }
}

/** Reads the upload of `request` (raw body already parsed to `{ stream }`, or multipart) into a new spool folder. */
export async function receiveUpload(request: FastifyRequest, service: UploadService): Promise<ReceivedUpload> {
  const { config } = service;
  const limit = config.maxAssetBytes;
  const user = requireUser(request);
  const counter: Counter = { used: 0, limit, started: Date.now(), rate: service.rate, count: (bytes) => service.quotas.count(user.id, bytes) };
  const query = (request.query ?? {}) as Record<string, unknown>;
  const fields: Record<string, string> = {};
  for (const key of ['sceneId', 'name']) if (typeof query[key] === 'string') fields[key] = query[key] as string;
  const dir = join(spoolRoot(config), `${Date.now().toString(36)}-${randomBytes(8).toString('hex')}`);
  await mkdir(dir, { recursive: true });
  // Spooled files are numbered: the names people give them are only labels.
  let files = 0;
  const nextFile = () => join(dir, String(files++));
  try {
    if (request.isMultipart()) {
      let model: { fileName: string; file: string } | undefined;
      const resources: Record<string, string> = {};
      try {
        for await (const part of request.parts({ limits: { fileSize: limit, files: MAX_FILES, fields: MAX_FIELDS } })) {
          if (part.type === 'field') {
            if (typeof part.value === 'string') fields[part.fieldname] = part.value;
            continue;
          }
          const name = baseName(part.filename || part.fieldname, 'file');
          const file = nextFile();
          if ((await spool(part.file, file, counter)) === 0 && !part.file.truncated) {
            throw new UploadHttpError(400, `The form's file part '${name}' is empty: send the file's content in it.`);
          }
          if (part.file.truncated) throw tooLargeError(limit);
          if (!model && MODEL_FILE.test(name)) model = { fileName: name, file };
          else resources[name] = file;
        }
      } catch (error) {
        throw formError(error);
      }
      if (!model) {
        // A single file of another name: let the validator say what it is.
        const names = Object.keys(resources);
        if (names.length !== 1) {
          throw new UploadHttpError(400, 'The form has no .glb or .gltf file: send the model as a file part (with its .bin and image files for a .gltf).');
        }
        model = { fileName: names[0], file: resources[names[0]] };
        delete resources[names[0]];
      }
      return { dir, ...model, resources, fields };
    }

    const body = request.body as { stream?: IncomingMessage } | undefined;
    if (!body?.stream) throw new UploadHttpError(400, 'The upload is empty: send the model file as the request body.');
    const fileName = decodeHeader(request.headers['x-file-name']) ?? (typeof query.fileName === 'string' ? query.fileName : undefined) ?? 'model.glb';
    const file = nextFile();
    if ((await spool(body.stream, file, counter)) === 0) throw new UploadHttpError(400, 'The upload is empty: send the model file as the request body.');
    return { dir, fileName: baseName(fileName, 'model.glb'), file, resources: {}, fields };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * What a failure while reading a multipart form means for the client: a form that is not well
 * formed (cut short, a part header without its blank line, no boundary...) is a 400 with the parser's
 * reason, too many parts a 413; our own answers and the server's faults (a spool file that cannot be
 * written: an errno code) pass through.
 */
export function formError(error: unknown): unknown {
  if (error instanceof UploadHttpError || error instanceof QuotaError || !(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return error;
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new UploadHttpError(413, `The form has too many parts: at most ${MAX_FILES} files and ${MAX_FIELDS} fields.`);
    case 'FST_PROTO_VIOLATION':
      return new UploadHttpError(400, 'A form part must not be named "__proto__" or "constructor".');
    case 'FST_MP_PREMATURE_CLOSE':
      return new UploadHttpError(400, 'The form ended before its last part was complete: the upload was cut short; send it again.');
    default:
      if (typeof code === 'string' && /^E[A-Z]/.test(code)) return error;
      return new UploadHttpError(400, `The multipart form is malformed: ${error.message}. Send multipart/form-data with the model as a file part.`);
  }
}

/** Status of an ImportError. */
export function importErrorStatus(error: ImportError): number {
  if (error.code === 'TOO_LARGE' || error.code === 'TOO_COMPLEX') return 413;
  if (error.code === 'OPTIMIZE_FAILED') return 422;
  return 400;
}

function sendUploadError(reply: FastifyReply, status: number, message: string, validation?: ValidationReport): FastifyReply {
  const body: UploadError = { error: message, ...(validation ? { validation } : {}) };
  return reply.code(status).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(body);
}

/** The status and `{ error, validation? }` answer of any failure of an upload. */
function describeFailure(error: unknown): { status: number; error: string; validation?: ValidationReport } | undefined {
  if (error instanceof UploadHttpError) return { status: error.statusCode, error: error.message, ...(error.validation ? { validation: error.validation } : {}) };
  if (error instanceof ImportError) return { status: importErrorStatus(error), error: error.message, ...(error.report ? { validation: error.report } : {}) };
  if (error instanceof UploadBusyError || error instanceof AuthError || error instanceof QuotaError) return { status: error.statusCode, error: error.message };
  return undefined;
}

/** What the upload plugins share: the spool, the worker pool and the status of asynchronous uploads. */
export interface UploadService {
  config: ServerConfig;
  rate: UploadRate;
  pool: UploadPool;
  jobs: UploadJobs;
  /** Per-person limits (upload/quotas.ts); the textures route counts against them too. */
  quotas: UploadQuotas;
}

/**
 * The upload service of an app: one pool, one job list and one set of per-person quotas for every
 * upload route. `storedBytes` says what a person stores (routes/stored-bytes.ts).
 */
export function createUploadService(config: ServerConfig, rate: UploadRate, storedBytes: (userId: string) => Promise<number>): UploadService {
  return {
    config,
    rate,
    pool: createUploadPool({ workers: config.uploads.workers, maxQueued: config.uploads.maxQueued, timeoutMs: config.uploads.timeoutMs, heapMb: config.uploads.heapMb }),
    jobs: createUploadJobs(),
    quotas: createUploadQuotas(config.limits, storedBytes),
  };
}

/**
 * The upload slot a request holds (UPLOADS_IN_FLIGHT_PER_USER): claimed before its body is read and
 * released when nothing holds it any more: its answer has ended (or its client is gone) and its
 * processing, synchronous or a `Prefer: respond-async` job, has ended too. So a client that sends
 * a body and goes away cannot have its upload processed outside the count.
 */
interface Slot {
  holds: number;
  release: () => void;
}
const slots = new WeakMap<FastifyRequest, Slot>();

/** One more hold on the slot of `request`; the function it returns lets go of it (once). */
function holdSlot(request: FastifyRequest): () => void {
  const slot = slots.get(request);
  if (!slot) return () => {};
  slot.holds++;
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (--slot.holds === 0) slot.release();
  };
}

/** The client of `request` is gone: nothing will read an answer. */
function clientGone(request: FastifyRequest, reply: FastifyReply): boolean {
  // (Not request.raw.destroyed: a body read to its end is destroyed too.)
  return reply.raw.destroyed || request.raw.socket?.destroyed === true;
}

/**
 * What the upload plugins share: the raw-body parsers (the body stays a stream, spooled in
 * `receiveUpload`), multipart, the 401 and 503 checks before the body is read, and
 * `{ error, validation }` answers for every failure.
 */
export async function setUpUploadScope(app: FastifyInstance, service: UploadService): Promise<void> {
  const limit = service.config.maxAssetBytes;
  await app.register(multipart, { limits: { fileSize: limit, files: MAX_FILES, fields: MAX_FIELDS } });
  app.addContentTypeParser(RAW_CONTENT_TYPES, (request, payload, done) => {
    // Declared too large: answered before reading; the app takes the rest off the wire first (request-body.ts).
    if ((declaredLength(request) ?? 0) > limit) done(tooLargeError(limit), undefined);
    else done(null, { stream: payload });
  });

  // Refused before the body is read: no token (401), a full queue (503), and the person's quotas:
  // uploads at once and bytes this hour (429), a store already full (413).
  app.addHook('preParsing', async (request, reply) => {
    if (request.method !== 'POST') return;
    if (request.user === null) throw new UploadHttpError(401, 'Sign in to upload: this request has no valid bearer token.');
    const { pool, config, quotas } = service;
    if (pool.running + pool.queued >= config.uploads.workers + config.uploads.maxQueued) {
      reply.header('retry-after', '30');
      throw new UploadBusyError(`The server is busy: ${pool.running} uploads are being processed and ${pool.queued} are waiting (UPLOAD_QUEUE). Try again in a minute.`, 30);
    }
    const userId = request.user.id;
    quotas.checkHour(userId, declaredLength(request) ?? 0);
    // The slot first (before any wait), held by the answer until it ends, however it ends.
    slots.set(request, { holds: 0, release: quotas.claim(userId) });
    const answered = holdSlot(request);
    if (clientGone(request, reply)) answered();
    else reply.raw.once('close', answered);
    await quotas.checkStored(userId, 1);
  });

  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    // Refused before its body was all read: the rest is not wanted, so the connection ends with the answer.
    if (!request.raw.complete) reply.header('connection', 'close');
    const known = describeFailure(error);
    if (known) {
      setRetryAfter(reply, error, known.status);
      return sendUploadError(reply, known.status, known.error, known.validation);
    }
    const code = (error as FastifyError).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE' || code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendUploadError(reply, 413, tooLargeError(limit).message);
    if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendUploadError(reply, 415, `Unsupported content type '${request.headers['content-type'] ?? ''}': send multipart/form-data or the file itself as ${RAW_CONTENT_TYPES.join(', ')}.`);
    }
    const status = typeof (error as FastifyError).statusCode === 'number' ? (error as FastifyError).statusCode! : 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'upload failed');
      return sendUploadError(reply, status, 'Internal server error (see the server log)');
    }
    return sendUploadError(reply, status, error.message);
  });
}

/** Runs the CPU part of an upload in a worker thread (queued behind others when all are busy). */
async function processUpload(service: UploadService, upload: ReceivedUpload, options: ProcessOptions, onStage: (stage: UploadStage) => void, signal?: AbortSignal): Promise<ProcessedModel> {
  const task: UploadTask = { fileName: upload.fileName, file: upload.file, resources: upload.resources, options };
  const result = await service.pool.run<UploadTask, UploadTaskResult>(upload.fileName, task, { onStage, signal });
  if (!result.ok) throw taskError(result.error);
  return result.processed;
}

/** `Prefer: respond-async` (RFC 7240): answer 202 with the upload's status instead of waiting. */
function prefersAsync(request: FastifyRequest): boolean {
  const prefer = request.headers.prefer;
  return (Array.isArray(prefer) ? prefer.join(',') : (prefer ?? '')).split(',').some((p) => p.trim().toLowerCase() === 'respond-async');
}

/**
 * Processes a received upload and answers: synchronously (the `created` answer when done), or with
 * `Prefer: respond-async` at once with 202 and the status, the work going on in the background.
 * `store` does what follows the processing (writing the derivative, the documents). The spool
 * folder is removed when the upload ends either way.
 */
export async function answerUpload<R>(
  service: UploadService,
  request: FastifyRequest,
  reply: FastifyReply,
  upload: ReceivedUpload,
  steps: { options: ProcessOptions; store: (processed: ProcessedModel) => Promise<R>; created: (result: R) => { location: string; body: unknown } },
): Promise<FastifyReply> {
  const user = requireUser(request);
  // Nobody would read the answer: not processed (its slot is let go with the closed answer), and
  // its spool folder removed here, as every other way out of this function does.
  if (clientGone(request, reply)) {
    await rm(upload.dir, { recursive: true, force: true });
    throw new UploadHttpError(400, 'The client closed the connection before the upload was processed.');
  }
  const processing = holdSlot(request);
  if (!prefersAsync(request)) {
    // The socket may sit silent while the upload waits and is processed: its idle timeout is for
    // clients that stop sending, not for the server's own work (the next request re-arms it).
    request.raw.socket.setTimeout(0);
    const aborted = new AbortController();
    const onClose = () => {
      if (!reply.sent) aborted.abort(new Error('The client closed the connection.'));
    };
    request.raw.socket.once('close', onClose);
    try {
      const processed = await processUpload(service, upload, steps.options, () => {}, aborted.signal);
      await service.quotas.checkStored(user.id, processed.container.byteLength, { fresh: true });
      const { location, body } = steps.created(await steps.store(processed));
      return reply.code(201).header('location', location).header('cache-control', 'no-store').send(body);
    } finally {
      request.raw.socket.off('close', onClose);
      processing();
      await rm(upload.dir, { recursive: true, force: true });
    }
  }

  const job = service.jobs.create(user.id, upload.fileName);
  void (async () => {
    try {
      const processed = await processUpload(service, upload, steps.options, (stage) => service.jobs.update(job.uploadId, stage));
      await service.quotas.checkStored(user.id, processed.container.byteLength, { fresh: true });
      service.jobs.update(job.uploadId, { state: 'storing' });
      const { body } = steps.created(await steps.store(processed));
      service.jobs.finish(job.uploadId, { state: 'done', status: 201, result: body });
    } catch (error) {
      const failure = describeFailure(error);
      if (!failure) request.log.error({ err: error }, 'upload failed');
      service.jobs.finish(job.uploadId, {
        state: 'failed',
        status: failure?.status ?? 500,
        error: failure?.error ?? 'Internal server error (see the server log)',
        ...(failure?.validation ? { validation: failure.validation } : {}),
      });
    } finally {
      processing();
      await rm(upload.dir, { recursive: true, force: true });
    }
  })();
  const status: UploadStatus = service.jobs.get(job.uploadId, user.id)!;
  return reply.code(202).header('location', `/v1/uploads/${job.uploadId}`).header('cache-control', 'no-store').send(status);
}

export default async function uploads(app: FastifyInstance, opts: { config: ServerConfig; store: Store; uploads: UploadService }): Promise<void> {
  const { config, store } = opts;
  const service = opts.uploads;
  await setUpUploadScope(app, service);

  app.get<{ Params: { uploadId: string } }>('/v1/uploads/:uploadId', async (request, reply) => {
    const user = requireUser(request);
    const status = service.jobs.get(request.params.uploadId, user.id);
    // Someone else's upload is as unknown as a missing one.
    if (!status) throw new UploadHttpError(404, `No upload '${request.params.uploadId}' of yours is known to this server (finished uploads are kept for 15 minutes)`);
    return reply.header('cache-control', 'no-store').send(status);
  });

  app.post('/v1/models', { bodyLimit: config.maxAssetBytes, config: { upload: true } }, async (request, reply) => {
    const user = requireUser(request);
    const sceneId = typeof (request.query as Record<string, unknown>)?.sceneId === 'string' ? ((request.query as Record<string, string>).sceneId.trim() || undefined) : undefined;
    if (sceneId !== undefined) await checkSceneWrite(store, sceneId, user);
    const upload = await receiveUpload(request, service);
    try {
      const targetScene = upload.fields.sceneId?.trim() || undefined;
      const name = upload.fields.name?.trim() || undefined;
      // A multipart form names its scene in a field, known only now.
      if (targetScene !== undefined && targetScene !== sceneId) await checkSceneWrite(store, targetScene, user);
      const denied = (scene: Parameters<typeof canWriteScene>[1]) => {
        if (!canWriteScene(user, scene)) throw sceneRefusal(scene._id);
      };
      return await answerUpload(service, request, reply, upload, {
        options: { maxBytes: config.maxAssetBytes, optimize: true, generator: 'parametricos upload' },
        store: (processed) => addModel(store, upload.fileName, processed, { sceneId: targetScene, name, ownerId: user.id, authorize: denied }),
        created: ({ scene, model, validation, optimization }) => {
          const result: ModelUploadResult = { ...model, sceneId: scene._id, validation: validation!, ...(optimization ? { optimization } : {}) };
          return { location: `/v1/models/${model._id}`, body: result };
        },
      });
    } catch (error) {
      await rm(upload.dir, { recursive: true, force: true });
      throw error;
    }
  });
}

function sceneRefusal(sceneId: string): AuthError {
  return new AuthError(403, `You may not change scene '${sceneId}': only its owner and editors may add models.`);
}

/** 400/404/403 unless `user` may add a model to scene `sceneId` (auth/permissions.ts, the rule of every route that changes a scene). */
async function checkSceneWrite(store: Store, sceneId: string, user: { id: string; firstName: string; lastName: string }): Promise<void> {
  if (!isValidId(sceneId)) throw new UploadHttpError(400, `Invalid scene id '${sceneId}': use 1-64 characters of A-Z a-z 0-9 _ -`);
  const scene = await store.getScene(sceneId);
  if (!scene) throw new UploadHttpError(404, `Scene '${sceneId}' not found`);
  if (!canWriteScene(user, scene)) throw sceneRefusal(sceneId);
}
