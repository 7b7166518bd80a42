import { Inflate, deflateSync, zlibSync } from 'fflate';
import { toExactArrayBuffer } from './container-header.ts';
import { deobfuscate } from './container-obfuscation.ts';
import { nodeBuiltin } from './node-builtin.ts';

/**
 * The container's inflation and deflation engines, fastest first (container-codec.ts says what
 * each costs): Node's zlib, the platform's DecompressionStream, fflate.
 */

export type CodecEngine = 'auto' | 'node-zlib' | 'stream' | 'fflate';

const STREAM_SLICE_BYTES = 64 * 1024;
const FFLATE_SLICE_BYTES = 16 * 1024;

/** The part of node:zlib we use, reached through process.getBuiltinModule (no import). */
interface NodeZlib {
  inflateRawSync(data: Uint8Array, options: NodeInflateOptions): NodeInflateResult;
  inflateSync(data: Uint8Array, options: NodeInflateOptions): NodeInflateResult;
  deflateRawSync(data: Uint8Array, options: { level: number }): Uint8Array;
  deflateSync(data: Uint8Array, options: { level: number }): Uint8Array;
}
interface NodeInflateOptions {
  info: true;
  maxOutputLength: number;
  chunkSize?: number;
}
interface NodeInflateResult {
  buffer: Uint8Array;
  engine: { bytesWritten: number };
}

const nodeZlib = (): NodeZlib | null => nodeBuiltin<NodeZlib>('node:zlib');

let deflateRawStreams: boolean | undefined;
function hasDeflateRawStreams(): boolean {
  if (deflateRawStreams === undefined) {
    try {
      new DecompressionStream('deflate-raw');
      new CompressionStream('deflate-raw');
      deflateRawStreams = true;
    } catch {
      deflateRawStreams = false;
    }
  }
  return deflateRawStreams;
}

/** Engines usable here, fastest first. */
export function availableEngines(): Exclude<CodecEngine, 'auto'>[] {
  const engines: Exclude<CodecEngine, 'auto'>[] = [];
  if (nodeZlib()) engines.push('node-zlib');
  if (hasDeflateRawStreams()) engines.push('stream');
  engines.push('fflate');
  return engines;
}

export function resolveEngine(engine: CodecEngine = 'auto'): Exclude<CodecEngine, 'auto'> {
  const available = availableEngines();
  if (engine === 'auto') return available[0];
  if (!available.includes(engine)) throw new Error(`The '${engine}' codec engine is not available on this platform.`);
  return engine;
}

/** Why inflation stopped; decodeContainer turns it into a ContainerError. */
export class InflateFailure extends Error {
  constructor(
    readonly reason: 'truncated' | 'corrupt' | 'limit' | 'trailing',
    detail: string,
    /** For 'trailing', when the engine says how many. */
    readonly trailingBytes?: number,
  ) {
    super(detail);
  }
}

export interface InflateJob {
  data: Uint8Array;
  zlibWrapped: boolean;
  /** Inflation fails with 'limit' as soon as the output would exceed this. */
  limit: number;
  /** The declared size, when known: the output buffer is allocated once at this size. */
  expected: number | null;
}

/** Collects inflated chunks into one buffer, failing as soon as the limit would be passed. */
class OutputSink {
  private buffer: Uint8Array<ArrayBuffer>;
  private length = 0;

  constructor(
    private readonly limit: number,
    expected: number | null,
  ) {
    this.buffer = new Uint8Array(expected ?? Math.min(limit, 64 * 1024));
  }

  write(chunk: Uint8Array): void {
    const end = this.length + chunk.length;
    if (end > this.limit) throw new InflateFailure('limit', `more than ${this.limit} bytes`);
    if (end > this.buffer.length) {
      const grown = new Uint8Array(Math.min(this.limit, Math.max(end, this.buffer.length * 2)));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(chunk, this.length);
    this.length = end;
  }

  result(): Uint8Array<ArrayBuffer> {
    return this.length === this.buffer.length ? this.buffer : this.buffer.slice(0, this.length);
  }
}

function inflateWithNodeZlib(zlib: NodeZlib, job: InflateJob): Uint8Array {
  const options: NodeInflateOptions = {
    info: true,
    maxOutputLength: Math.max(1, job.limit),
    // One output chunk when the size is known (no concatenation); +1 so the end of the stream is
    // seen without a second chunk. zlib's default (16 KiB) otherwise.
    ...(job.expected !== null && job.expected < 256 * 1024 * 1024 ? { chunkSize: Math.max(64, job.expected + 1) } : {}),
  };
  let result: NodeInflateResult;
  try {
    result = job.zlibWrapped ? zlib.inflateSync(job.data, options) : zlib.inflateRawSync(job.data, options);
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    if (code === 'ERR_BUFFER_TOO_LARGE') throw new InflateFailure('limit', `more than ${job.limit} bytes`);
    if (code === 'Z_BUF_ERROR') throw new InflateFailure('truncated', message ?? 'unexpected end of data');
    throw new InflateFailure('corrupt', message ?? String(error));
  }
  const consumed = result.engine.bytesWritten;
  if (consumed < job.data.length) {
    throw new InflateFailure('trailing', 'bytes after the end of the stream', job.data.length - consumed);
  }
  const out = result.buffer;
  if (out.length > job.limit) throw new InflateFailure('limit', `more than ${job.limit} bytes`);
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

async function inflateWithStream(job: InflateJob): Promise<Uint8Array> {
  const stream = new DecompressionStream(job.zlibWrapped ? 'deflate' : 'deflate-raw');
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const sink = new OutputSink(job.limit, job.expected);
  const ignore = (): void => {};
  let stopped = false;
  // Slices, written as the decompressor asks for more: a bomb is caught one slice after the limit.
  const pump = async (): Promise<void> => {
    for (let at = 0; at < job.data.length; at += STREAM_SLICE_BYTES) {
      await writer.ready;
      if (stopped) return;
      writer.write(job.data.subarray(at, at + STREAM_SLICE_BYTES) as Uint8Array<ArrayBuffer>).catch(ignore);
    }
    await writer.close();
  };
  pump().catch(ignore); // a failure here surfaces through the reader
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      sink.write(value);
    }
  } catch (error) {
    stopped = true;
    reader.cancel().catch(ignore);
    writer.abort().catch(ignore);
    if (error instanceof InflateFailure) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: string }).code;
    if (code === 'Z_BUF_ERROR' || /truncat|unexpected end|end of (file|stream|input)/i.test(message)) {
      throw new InflateFailure('truncated', message);
    }
    if (/junk|after the end|trailing/i.test(message)) throw new InflateFailure('trailing', message);
    throw new InflateFailure('corrupt', message);
  }
  return sink.result();
}

function inflateWithFflate(job: InflateJob): Uint8Array {
  let data = job.data;
  if (job.zlibWrapped) {
    // 2-byte header (checked by the caller, no preset dictionary), raw DEFLATE, Adler-32.
    if (data.length < 6) throw new InflateFailure('truncated', 'zlib stream too short');
    data = data.subarray(2, data.length - 4);
  }
  const sink = new OutputSink(job.limit, job.expected);
  const inflater = new Inflate((chunk) => sink.write(chunk));
  try {
    // The last push is never empty: fflate only reports a premature end on a non-empty final push.
    for (let at = 0; at < data.length; at += FFLATE_SLICE_BYTES) {
      const end = Math.min(data.length, at + FFLATE_SLICE_BYTES);
      inflater.push(data.subarray(at, end), end === data.length);
    }
    if (data.length === 0) throw new InflateFailure('truncated', 'no data');
  } catch (error) {
    if (error instanceof InflateFailure) throw error;
    const { code, message } = error as { code?: number; message?: string };
    throw new InflateFailure(code === 0 ? 'truncated' : 'corrupt', message ?? String(error));
  }
  const out = sink.result();
  if (job.zlibWrapped) {
    const at = job.data.length - 4;
    const stored = ((job.data[at] << 24) | (job.data[at + 1] << 16) | (job.data[at + 2] << 8) | job.data[at + 3]) >>> 0;
    if (adler32(out) !== stored) throw new InflateFailure('corrupt', 'incorrect data check');
  }
  return out;
}

function adler32(data: Uint8Array): number {
  let a = 1,
    b = 0;
  for (let i = 0; i < data.length;) {
    const end = Math.min(data.length, i + 5552); // zlib's NMAX: sums stay below 2^32 between reductions
    for (; i < end; i++) {
      a += data[i];
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/**
 * Inflates the payload, deobfuscating it first when a seed is given (into our own buffer: the
 * caller's bytes stay as they are). The synchronous engines reuse one scratch buffer for that,
 * which spares Node a payload-sized allocation, zero fill and collection per decode (decode times
 * are measurably steadier); this is safe because they run to completion without yielding. The
 * stream engine awaits, so it gets a buffer of its own, and so does any payload above the scratch
 * cap.
 */
export async function inflatePayload(
  engine: Exclude<CodecEngine, 'auto'>,
  payload: Uint8Array,
  seed: number | null,
  job: Omit<InflateJob, 'data'>,
): Promise<Uint8Array> {
  if (engine === 'stream') return inflateWithStream({ ...job, data: seed === null ? payload : deobfuscate(payload, seed, false) });
  const data = seed === null ? payload : deobfuscate(payload, seed, true);
  return engine === 'node-zlib' ? inflateWithNodeZlib(nodeZlib()!, { ...job, data }) : inflateWithFflate({ ...job, data });
}
/** The asset deflated at level 9: raw, or zlib-wrapped (a legacy file). */
export async function deflate(engine: Exclude<CodecEngine, 'auto'>, asset: Uint8Array, zlibWrapped: boolean): Promise<Uint8Array> {
  if (engine === 'node-zlib') {
    const zlib = nodeZlib()!;
    const out = zlibWrapped ? zlib.deflateSync(asset, { level: 9 }) : zlib.deflateRawSync(asset, { level: 9 });
    // A plain Uint8Array that owns exactly its bytes, not a Buffer (whose slice() does not copy).
    return new Uint8Array(toExactArrayBuffer(new Uint8Array(out.buffer, out.byteOffset, out.byteLength)));
  }
  if (engine === 'stream') {
    const stream = new Blob([asset as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream(zlibWrapped ? 'deflate' : 'deflate-raw'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }
  return zlibWrapped ? zlibSync(asset, { level: 9 }) : deflateSync(asset, { level: 9 });
}

/** A zlib stream header (RFC 1950): deflate method, window <= 32K, check bits, no dictionary. */
export function looksLikeZlib(data: Uint8Array): boolean {
  return data.length >= 2 && (data[0] & 0x0f) === 8 && data[0] >> 4 <= 7 && ((data[0] << 8) | data[1]) % 31 === 0 && !(data[1] & 0x20);
}
