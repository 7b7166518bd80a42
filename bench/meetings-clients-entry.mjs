// Worker-thread entry of bench/meetings-clients.ts: a worker does not inherit tsx's loader, so it
// registers it first (tsx's documented API), then loads the TypeScript module.
import { register } from 'tsx/esm/api';

register();
await import('./meetings-clients.ts');
