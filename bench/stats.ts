/** The benches' own statistics, one definition for all of them (node side: pages keep their own). */

/** The median: the middle value, or the mean of the two middle ones for an even count. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * The median run by time (the upper middle one for an even count): a real run, so that its other
 * figures (marks, long tasks, CPU) belong to the same load.
 */
export function medianRun<T extends { ms: number }>(runs: readonly T[]): T {
  return [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)]!;
}
