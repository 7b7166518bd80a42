import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startPagesServer } from './load-pages';
import { measureLoad, type LoadRun } from './load-run';
import { seedScenes } from './load-scenes';
import { startServer } from './server';
import { median } from './stats';

/**
 * An A/B experiment on our embed's load, without changing the app: A is the page as built, B the
 * same page with CSS added (or a script run before the app's). Runs alternate, each in a fresh
 * browser as bench/load.bench.ts measures; prints the medians of the wall time to viewerready and
 * of the CPU time of the browser's processes (the better figure on a machine that other work
 * shares). For example, the loading overlay without its backdrop blur and pulse:
 *
 *   npx tsx bench/load-ab.ts --scene warehouse --quality low --runs 3 \
 *     --css '.loading{backdrop-filter:none!important}.pulse{animation:none!important}'
 */

const { values: argv } = parseArgs({
  options: {
    scene: { type: 'string', default: 'helmet' },
    quality: { type: 'string' },
    runs: { type: 'string', default: '3' },
    css: { type: 'string' },
    script: { type: 'string' },
  },
});


const dataDir = mkdtempSync(join(tmpdir(), 'bench-ab-'));
const [scene] = await seedScenes(dataDir, [argv.scene!]);
const server = await startServer(dataDir);
const pages = await startPagesServer({});
try {
  const b: string[] = [];
  if (argv.css) b.push(`if (location.pathname.startsWith('/embed/')) document.addEventListener('DOMContentLoaded', () => { const s = document.createElement('style'); s.textContent = ${JSON.stringify(argv.css)}; document.head.append(s); })`);
  if (argv.script) b.push(`if (location.pathname.startsWith('/embed/')) { ${argv.script} }`);
  const url = pages.hostUrl(`${server.base}/embed/${scene.sceneId}${argv.quality ? `?quality=${argv.quality}` : ''}`);
  const runs: Record<'A' | 'B', LoadRun[]> = { A: [], B: [] };
  for (let i = 0; i < Number(argv.runs); i++) {
    for (const variant of ['A', 'B'] as const) {
      const r = await measureLoad({ hostUrl: url, frameOrigin: server.base, message: 'viewerready', timeoutMs: 180_000, initScripts: variant === 'B' ? b : [] });
      runs[variant].push(r);
      console.log(`${variant} #${i + 1}: ${Math.round(r.ms)} ms, CPU ${Math.round(r.cpu?.total ?? NaN)} ms (${Object.entries(r.cpu?.byType ?? {}).map(([t, ms]) => `${t} ${Math.round(ms)}`).join(', ')})`);
    }
  }
  for (const variant of ['A', 'B'] as const) {
    const rs = runs[variant];
    const types = [...new Set(rs.flatMap((r) => Object.keys(r.cpu?.byType ?? {})))];
    console.log(`${variant}: median ${Math.round(median(rs.map((r) => r.ms)))} ms to viewerready; CPU ${Math.round(median(rs.map((r) => r.cpu?.total ?? NaN)))} ms (${types.map((t) => `${t} ${Math.round(median(rs.map((r) => r.cpu?.byType[t] ?? 0)))}`).join(', ')})`);
  }
} finally {
  await pages.close();
  server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
