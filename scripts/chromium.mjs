#!/usr/bin/env node
// Finds the Chromium that browser tests and benchmarks drive (DESIGN.md section 6).
//
// Order: $CHROMIUM_PATH, then the usual install paths. If none is found and we are root on
// Debian, installs Debian's `chromium` package; anywhere else it throws an error that says how
// to get one. Playwright never downloads a browser here: it is always given `executablePath`.
//
// CLI: `node scripts/chromium.mjs [--ensure]` prints the path (installing on Debian as root if
// needed); `--no-install` only looks. Exits 1 with the error message if none is to be had.
import { accessSync, constants, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CANDIDATE_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/snap/bin/chromium',
];

/**
 * "Chromium's default flags" of the load benchmarks: the flags every headless run here needs and
 * nothing that chooses the renderer (Playwright still adds its own launch switches to both sets).
 * Without a GPU Chromium 156 then falls back to SwiftShader on its own and the page waits for each
 * picture to be drawn, as a visitor's browser without a GPU does; with CHROMIUM_ARGS (ANGLE asked
 * for SwiftShader by name, the GPU blocklist ignored) the page goes on while the picture is still
 * being drawn. The load benchmarks time pictures on both.
 */
export const DEFAULT_FLAG_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * Flags for headless Chromium in tests and benchmarks. No GPU here or in CI: WebGL2 renders
 * with SwiftShader (ANGLE on SwiftShader Vulkan). Debian's Chromium 156 still falls back to it
 * on its own, but upstream is retiring that automatic fallback for WebGL, so the last three
 * flags ask for it explicitly (same renderer string, checked by tests/e2e/smoke.spec.ts).
 */
export const CHROMIUM_ARGS = [
  ...DEFAULT_FLAG_ARGS,
  '--enable-unsafe-swiftshader',
  '--use-angle=swiftshader',
  '--ignore-gpu-blocklist',
];

/**
 * Added for the browser tests that don't judge the picture (playwright.config.ts): WebGL draws
 * without multisampling. A context asked for with antialiasing still says it has it
 * (getContextAttributes), the viewer's settings are unchanged, and only the rasteriser does less:
 * on SwiftShader the low tier's 4x MSAA was a third of the demo warehouse test's time (34 s against
 * 22 s). Tests that compare a picture with a reference take CHROMIUM_ARGS alone
 * (tests/e2e/picture.ts), as do the benchmarks.
 */
export const NO_MULTISAMPLING_ARGS = ['--webgl-msaa-sample-count=0'];

function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const HOW_TO_GET_ONE =
  'Install Chromium (Debian/Ubuntu: `sudo apt-get install chromium`; Fedora: `sudo dnf install chromium`; ' +
  'macOS: install Google Chrome or `brew install --cask chromium`), or set CHROMIUM_PATH to a Chromium or Chrome executable.';

/**
 * @param {{ install?: boolean, log?: (msg: string) => void }} [options]
 *   install: on Debian as root, apt-get install chromium if none is found (default true).
 * @returns {string} absolute path of a Chromium executable
 */
export function findChromium(options = {}) {
  const { install = true, log = (msg) => process.stderr.write(`${msg}\n`) } = options;
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (isExecutable(fromEnv)) return fromEnv;
    throw new Error(`CHROMIUM_PATH=${fromEnv} is not an executable file. ${HOW_TO_GET_ONE}`);
  }
  for (const path of CANDIDATE_PATHS) if (isExecutable(path)) return path;

  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const isDebian = existsSync('/etc/debian_version');
  if (install && isRoot && isDebian) {
    log('[chromium] no Chromium found; installing Debian package `chromium` (apt-get update && apt-get install -y chromium)');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    for (const args of [['update'], ['install', '-y', 'chromium']]) {
      // apt's progress goes to stderr: stdout is the path alone (`--ensure` prints it for .ci/run).
      const r = spawnSync('apt-get', args, { stdio: ['ignore', process.stderr, 'inherit'], env });
      if (r.error || r.status !== 0) {
        throw new Error(`apt-get ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}). ${HOW_TO_GET_ONE}`);
      }
    }
    if (isExecutable('/usr/bin/chromium')) return '/usr/bin/chromium';
    throw new Error(`apt-get installed chromium but /usr/bin/chromium is missing. ${HOW_TO_GET_ONE}`);
  }
  throw new Error(`No Chromium found (looked at CHROMIUM_PATH, ${CANDIDATE_PATHS.join(', ')}). ${HOW_TO_GET_ONE}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const path = findChromium({ install: !process.argv.includes('--no-install') });
    const v = spawnSync(path, ['--version'], { encoding: 'utf8' });
    const version = (v.stdout ?? '').trim().split('\n').pop();
    process.stderr.write(`[chromium] ${path}${version ? ` (${version})` : ''}\n`);
    process.stdout.write(`${path}\n`);
  } catch (err) {
    process.stderr.write(`[chromium] ${err.message}\n`);
    process.exit(1);
  }
}
