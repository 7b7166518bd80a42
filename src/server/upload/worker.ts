import { readFile } from 'node:fs/promises';
import { ImportError, type TaskError } from './errors.ts';
import { processModel, type ProcessedModel, type ProcessOptions } from './process.ts';

/**
 * What an upload worker thread does (./pool.ts runs it): reads the upload's files from the spool
 * folder and turns them into a container with ./process.ts. The answer is plain data: errors cross
 * the thread boundary as `{ ok: false, error }` (a thrown ImportError would lose its code and report).
 */

export interface UploadTask {
  fileName: string;
  /** The spooled model file. */
  file: string;
  /** Spooled companion files of a .gltf: file name -> path. */
  resources: Record<string, string>;
  options: ProcessOptions;
}

export { taskError, type TaskError } from './errors.ts';

export type UploadTaskResult = { ok: true; processed: ProcessedModel } | { ok: false; error: TaskError };

export default async function runUploadTask(task: UploadTask): Promise<UploadTaskResult> {
  const bytes = new Uint8Array(await readFile(task.file));
  const resources: Record<string, Uint8Array> = {};
  for (const [name, path] of Object.entries(task.resources)) resources[name] = new Uint8Array(await readFile(path));
  try {
    return { ok: true, processed: await processModel({ fileName: task.fileName, bytes, resources }, task.options) };
  } catch (error) {
    if (!(error instanceof ImportError)) throw error;
    return { ok: false, error: { code: error.code, message: error.message, ...(error.report ? { report: error.report } : {}) } };
  }
}
