import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ModelUploadResult, UploadError, ValidationReport } from '../../protocol/upload.ts';
import type { ServerConfig } from '../config.ts';
import { ImportError, importModel } from '../import.ts';
import { isValidId, type Store } from '../store.ts';

/**
 * POST /v1/models: upload of a model (DESIGN.md 4.4). Two forms, both streamed and counted
 * against MAX_ASSET_BYTES (all files of one upload together):
 *
 * - raw body: the .glb (or a self-contained .gltf) as the body, `Content-Type: model/gltf-binary`,
 *   `model/gltf+json` or `application/octet-stream`, the file name in the `X-File-Name` header
 *   (URL-encoded) or the `fileName` query parameter; `sceneId` and `name` as query parameters.
 * - multipart/form-data: one .glb or .gltf file part (the first such), any other file parts are the
 *   files the .gltf refers to (its .bin and images, matched by file name); optional fields `sceneId`
 *   and `name`.
 *
 * The file is checked by Khronos's glTF-Validator (400 with its report when it has errors), then
 * optimised (src/server/optimize.ts), packed into a container 1.0.0 and written to the derivative
 * store under a new version key. Answer: 201 with the Model document plus `sceneId`, the
 * validator's report (`validation`) and the optimisation summary. Without `sceneId` a new scene
 * owned by the uploader is created; with one, the model is appended to that scene, which must exist
 * and which the uploader must own or edit.
 *
 * Needs a signed-in user: the identity plugin sets `request.user` ({ id, firstName, lastName } or
 * null); no user -> 401. Errors: 400 (not glTF, validator errors, bad form), 401, 403, 404 (unknown
 * scene), 413 (too large), 415 (content type), 422 (the optimised model failed validation: our bug).
 */

export interface UploadUser {
  id: string;
  firstName?: string;
  lastName?: string;
}

/** The signed-in user that the identity plugin put on the request, or null. */
export function userOf(request: FastifyRequest): UploadUser | null {
  const user = (request as FastifyRequest & { user?: unknown }).user;
  if (typeof user !== 'object' || user === null) return null;
  const id = (user as { id?: unknown }).id;
  return typeof id === 'string' && id.length > 0 ? (user as UploadUser) : null;
}

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

/**
 * How much of an oversize body is still read (and thrown away) before the 413 goes out: a client
 * still sending when the server answers and closes sees a reset connection instead of the answer.
 * Past this, the connection is cut.
 */
const DRAIN_LIMIT = 64 * 1024 * 1024;

/** Reads and discards the rest of a stream, up to DRAIN_LIMIT more bytes. */
async function drain(stream: Readable | IncomingMessage): Promise<void> {
  let drained = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    drained += chunk.length;
    if (drained > DRAIN_LIMIT) {
      stream.destroy();
      return;
    }
  }
}

/** Reads a stream into memory, failing with 413 as soon as `counter.used` passes `counter.limit`. */
async function readLimited(stream: Readable | IncomingMessage, counter: { used: number; limit: number }): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    counter.used += chunk.length;
    if (counter.used > counter.limit) {
      await drain(stream);
      throw tooLargeError(counter.limit);
    }
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/** One upload, whichever form it came in. */
export interface ReceivedUpload {
  fileName: string;
  bytes: Uint8Array;
  /** Companion files (multipart), by file name. */
  resources: Record<string, Uint8Array>;
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

/** Reads the upload of `request` (raw body already parsed to `{ stream }`, or multipart). */
export async function receiveUpload(request: FastifyRequest, limit: number): Promise<ReceivedUpload> {
  const counter = { used: 0, limit };
  const query = (request.query ?? {}) as Record<string, unknown>;
  const fields: Record<string, string> = {};
  for (const key of ['sceneId', 'name']) if (typeof query[key] === 'string') fields[key] = query[key] as string;

  if (request.isMultipart()) {
    let model: { fileName: string; bytes: Uint8Array } | undefined;
    const resources: Record<string, Uint8Array> = {};
    for await (const part of request.parts({ limits: { fileSize: limit, files: MAX_FILES, fields: MAX_FIELDS } })) {
      if (part.type === 'field') {
        if (typeof part.value === 'string') fields[part.fieldname] = part.value;
        continue;
      }
      const name = (part.filename || part.fieldname).replace(/\\/g, '/').split('/').pop() || 'file';
      const bytes = await readLimited(part.file, counter);
      if (part.file.truncated) throw tooLargeError(limit);
      if (!model && MODEL_FILE.test(name)) model = { fileName: name, bytes };
      else resources[name] = bytes;
    }
    if (!model) {
      // A single file of another name: let the validator say what it is.
      const names = Object.keys(resources);
      if (names.length !== 1) {
        throw new UploadHttpError(400, 'The form has no .glb or .gltf file: send the model as a file part (with its .bin and image files for a .gltf).');
      }
      model = { fileName: names[0], bytes: resources[names[0]] };
      delete resources[names[0]];
    }
    return { ...model, resources, fields };
  }

  const body = request.body as { stream?: IncomingMessage } | undefined;
  if (!body?.stream) throw new UploadHttpError(400, 'The upload is empty: send the model file as the request body.');
  const fileName = decodeHeader(request.headers['x-file-name']) ?? (typeof query.fileName === 'string' ? query.fileName : undefined) ?? 'model.glb';
  const bytes = await readLimited(body.stream, counter);
  if (bytes.byteLength === 0) throw new UploadHttpError(400, 'The upload is empty: send the model file as the request body.');
  return { fileName: fileName.replace(/\\/g, '/').split('/').pop() || 'model.glb', bytes, resources: {}, fields };
}

/** Status of an ImportError. */
export function importErrorStatus(error: ImportError): number {
  if (error.code === 'TOO_LARGE') return 413;
  if (error.code === 'OPTIMIZE_FAILED') return 422;
  return 400;
}

function sendUploadError(reply: FastifyReply, status: number, message: string, validation?: ValidationReport): FastifyReply {
  const body: UploadError = { error: message, ...(validation ? { validation } : {}) };
  return reply.code(status).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(body);
}

/**
 * What the upload plugins share: the raw-body parsers (the body stays a stream, counted in
 * `receiveUpload`), multipart, the 401 check before the body is read, and `{ error, validation }`
 * answers for every failure.
 */
export async function setUpUploadScope(app: FastifyInstance, limit: number): Promise<void> {
  await app.register(multipart, { limits: { fileSize: limit, files: MAX_FILES, fields: MAX_FIELDS } });
  app.addContentTypeParser(RAW_CONTENT_TYPES, (request, payload, done) => {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      if (declared > limit + DRAIN_LIMIT) {
        done(tooLargeError(limit), undefined);
        return;
      }
      drain(payload).then(
        () => done(tooLargeError(limit), undefined),
        () => done(tooLargeError(limit), undefined),
      );
      return;
    }
    done(null, { stream: payload });
  });

  // A request that says who it is not is refused before its body is read. The identity plugin
  // may set request.user later than this hook: the handlers check again.
  app.addHook('preParsing', async (request) => {
    if (request.method !== 'POST') return;
    if ((request as FastifyRequest & { user?: unknown }).user === null) throw new UploadHttpError(401, 'Sign in to upload: this request has no valid bearer token.');
  });

  app.setErrorHandler((error: FastifyError | UploadHttpError | ImportError, request, reply) => {
    if (error instanceof UploadHttpError) return sendUploadError(reply, error.statusCode, error.message, error.validation);
    if (error instanceof ImportError) return sendUploadError(reply, importErrorStatus(error), error.message, error.report);
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

export function requireUser(request: FastifyRequest): UploadUser {
  const user = userOf(request);
  if (!user) throw new UploadHttpError(401, 'Sign in to upload: this request has no valid bearer token.');
  return user;
}

export default async function uploads(app: FastifyInstance, opts: { config: ServerConfig; store: Store }): Promise<void> {
  const { config, store } = opts;
  const limit = config.maxAssetBytes;
  await setUpUploadScope(app, limit);

  app.post('/v1/models', { bodyLimit: limit }, async (request, reply) => {
    const user = requireUser(request);
    const upload = await receiveUpload(request, limit);

    const sceneId = upload.fields.sceneId?.trim() || undefined;
    const name = upload.fields.name?.trim() || undefined;
    if (sceneId !== undefined) {
      if (!isValidId(sceneId)) throw new UploadHttpError(400, `Invalid scene id '${sceneId}': use 1-64 characters of A-Z a-z 0-9 _ -`);
      const scene = await store.getScene(sceneId);
      if (!scene) throw new UploadHttpError(404, `Scene '${sceneId}' not found`);
      const mayChange = scene.ownerId === undefined || scene.ownerId === user.id || (scene.editors ?? []).includes(user.id);
      if (!mayChange) throw new UploadHttpError(403, `You may not change scene '${sceneId}': only its owner and editors may add models.`);
    }

    const { scene, model, validation, optimization } = await importModel(
      store,
      { bytes: upload.bytes, fileName: upload.fileName, resources: upload.resources },
      { sceneId, name, maxBytes: limit, optimize: true, ownerId: user.id, generator: 'parametricos upload' },
    );
    const result: ModelUploadResult = {
      ...model,
      sceneId: scene._id,
      validation: validation!,
      ...(optimization ? { optimization } : {}),
    };
    return reply.code(201).header('location', `/v1/models/${model._id}`).header('cache-control', 'no-store').send(result);
  });
}
