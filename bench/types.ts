/** One measurement from a benchmark; `npm run bench` (scripts/bench.mjs) prints and records them. */
export type BenchResult = { name: string; value: number; unit: string; baseline?: number; ratio?: number; goal?: string; pass?: boolean };
