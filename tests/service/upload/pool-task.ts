import { existsSync } from 'node:fs';
import { threadId } from 'node:worker_threads';

/**
 * A task for the pool tests (tests/service/upload/pool.test.ts), run in the pool's worker threads:
 * waits until the file `gate` exists (so a test decides when it ends), can hold on to `allocateMb`
 * of JavaScript objects (to pass the heap limit), and answers with the thread it ran in.
 */
export interface PoolTestTask {
  id: string;
  gate?: string;
  allocateMb?: number;
}

export default async function poolTestTask(task: PoolTestTask): Promise<{ id: string; threadId: number; held: number }> {
  const held: unknown[] = [];
  for (let mb = 0; mb < (task.allocateMb ?? 0); mb++) held.push(Array.from({ length: 32 * 1024 }, (_, i) => ({ i })));
  while (task.gate && !existsSync(task.gate)) await new Promise((resolve) => setTimeout(resolve, 5));
  return { id: task.id, threadId, held: held.length };
}
