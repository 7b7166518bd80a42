import { randomUUID } from 'node:crypto';
import type { UploadStatus } from '../../protocol/upload.ts';

/**
 * The progress of uploads sent with `Prefer: respond-async` (routes/uploads.ts), in this process's
 * memory: each is readable by its uploader only, and kept FINISHED_TTL_MS after it ends. At most
 * MAX_JOBS are kept; past that the oldest finished ones go first.
 */

export const FINISHED_TTL_MS = 15 * 60_000;
const MAX_JOBS = 10_000;

interface Job {
  userId: string;
  status: UploadStatus;
  /** When a finished job is forgotten. */
  expiresAt?: number;
}

export type StageUpdate = { state: 'queued'; position: number } | { state: 'processing' } | { state: 'storing' };
export type Ending = Required<Pick<UploadStatus, 'status'>> & ({ state: 'done'; result: unknown } | { state: 'failed'; error: string; validation?: UploadStatus['validation'] });

export interface UploadJobs {
  create(userId: string, fileName: string): UploadStatus;
  update(uploadId: string, stage: StageUpdate): void;
  finish(uploadId: string, ending: Ending): void;
  /** The status, when `userId` uploaded it and it is still kept. */
  get(uploadId: string, userId: string): UploadStatus | undefined;
}

export function createUploadJobs(now: () => number = Date.now): UploadJobs {
  const jobs = new Map<string, Job>();

  function forgetExpired(): void {
    const time = now();
    for (const [id, job] of jobs) if (job.expiresAt !== undefined && job.expiresAt <= time) jobs.delete(id);
    if (jobs.size < MAX_JOBS) return;
    for (const [id, job] of jobs) {
      if (job.expiresAt === undefined) continue;
      jobs.delete(id);
      if (jobs.size < MAX_JOBS) return;
    }
  }

  return {
    create(userId, fileName) {
      forgetExpired();
      const status: UploadStatus = { uploadId: randomUUID(), fileName, state: 'queued' };
      jobs.set(status.uploadId, { userId, status });
      return { ...status };
    },
    update(uploadId, stage) {
      const job = jobs.get(uploadId);
      if (!job || job.expiresAt !== undefined) return;
      const { position: _old, ...rest } = job.status;
      job.status = { ...rest, ...stage };
    },
    finish(uploadId, ending) {
      const job = jobs.get(uploadId);
      if (!job) return;
      job.status = { uploadId, fileName: job.status.fileName, ...ending };
      job.expiresAt = now() + FINISHED_TTL_MS;
    },
    get(uploadId, userId) {
      forgetExpired();
      const job = jobs.get(uploadId);
      return job && job.userId === userId ? { ...job.status } : undefined;
    },
  };
}
