import { describe, expect, it } from 'vitest';
import { createUploadJobs, FINISHED_TTL_MS } from '../../../src/server/upload/jobs.ts';

describe('createUploadJobs', () => {
  it('follows an upload from queued to done, for its uploader only, and forgets it after FINISHED_TTL_MS', () => {
    let now = 0;
    const jobs = createUploadJobs(() => now);
    const { uploadId } = jobs.create('ada', 'Duck.glb');
    expect(jobs.get(uploadId, 'ada')).toEqual({ uploadId, fileName: 'Duck.glb', state: 'queued' });
    jobs.update(uploadId, { state: 'queued', position: 2 });
    expect(jobs.get(uploadId, 'ada')).toMatchObject({ state: 'queued', position: 2 });
    jobs.update(uploadId, { state: 'processing' });
    expect(jobs.get(uploadId, 'ada')).toEqual({ uploadId, fileName: 'Duck.glb', state: 'processing' });
    expect(jobs.get(uploadId, 'mallory')).toBeUndefined();
    jobs.finish(uploadId, { state: 'done', status: 201, result: { _id: 'm' } });
    jobs.update(uploadId, { state: 'processing' }); // too late: it is finished
    expect(jobs.get(uploadId, 'ada')).toEqual({ uploadId, fileName: 'Duck.glb', state: 'done', status: 201, result: { _id: 'm' } });
    now += FINISHED_TTL_MS - 1;
    expect(jobs.get(uploadId, 'ada')).toBeDefined();
    now += 1;
    expect(jobs.get(uploadId, 'ada')).toBeUndefined();
  });

  it('keeps an upload that is still going however long it takes', () => {
    let now = 0;
    const jobs = createUploadJobs(() => now);
    const { uploadId } = jobs.create('ada', 'Big.glb');
    now += 10 * FINISHED_TTL_MS;
    expect(jobs.get(uploadId, 'ada')?.state).toBe('queued');
  });
});
