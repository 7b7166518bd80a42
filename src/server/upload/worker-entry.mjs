// The module each upload worker thread loads (./pool.ts): plain JavaScript, so that Node can load it
// whatever the parent runs under (tsx, vitest); it registers tsx in the thread, then hands over to
// the TypeScript task. `workerData.task` names the task module (tests run their own).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const task = await import(workerData?.task ?? new URL('./worker.ts', import.meta.url).href);
export default task.default;
