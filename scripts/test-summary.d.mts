/** Types for scripts/test-summary.mjs. */
export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  flaky: number;
  problems: string[];
}
export interface RunResult {
  /** The parsed JSON report; null or undefined when missing or unreadable. */
  report: unknown;
  /** The runner's exit code; null when it was killed (then `signal` says by what). */
  exitCode: number | null;
  signal?: string | null;
  /** Set when the runner could not be started at all. */
  error?: string;
}
export declare function countVitest(report: any): Counts;
export declare function countPlaywright(report: any): Counts;
export declare function summarize(runs: { unit?: RunResult; e2e?: RunResult }): Counts & { ok: boolean; line: string };
export declare function formatLine(counts: { passed: number; failed: number; skipped: number }): string;
export interface FileTime {
  kind: 'unit' | 'e2e';
  /** Relative to the root given. */
  file: string;
  ms: number;
}
export interface TestTime extends FileTime {
  title: string;
}
export declare function slowest(runs: { unit?: RunResult; e2e?: RunResult }, root?: string, n?: number): { files: FileTime[]; tests: TestTime[] };
export declare function formatSlowest(slow: { files: FileTime[]; tests: TestTime[] }): string[];
