import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canConnect, freePort } from './redis.ts';

/**
 * A real Janus WebRTC server for the service and browser tests, started from Debian's `janus`
 * (package janus): a configuration of our own in a temporary folder with only what the meetings
 * use (the websockets transport on 127.0.0.1 and a free port, the VideoRoom plugin, no HTTP, no
 * event handlers, no loggers) and an API secret. Its media candidates are this machine's own
 * interface addresses (libnice never offers loopback ones; Chromium's host candidates are the same
 * addresses, so media between them stays on the machine). Stopped at the end. Not installed: `janusSkipReason()` says so and the suites are skipped (reported as
 * skipped); `.ci/run` installs the package, so CI runs them.
 */

const JANUS_BIN = process.env.JANUS_BIN ?? '/usr/bin/janus';
const JANUS_LIB = process.env.JANUS_LIB ?? '/usr/lib/x86_64-linux-gnu/janus';

export function janusSkipReason(): string | undefined {
  if (!existsSync(JANUS_BIN)) return `Janus is not installed (no ${JANUS_BIN}): apt-get install --no-install-recommends janus`;
  if (!existsSync(join(JANUS_LIB, 'plugins/libjanus_videoroom.so'))) return `Janus's VideoRoom plugin is missing from ${JANUS_LIB}/plugins`;
  if (!existsSync(join(JANUS_LIB, 'transports/libjanus_websockets.so'))) return `Janus's websockets transport is missing from ${JANUS_LIB}/transports`;
  return undefined;
}

export interface TestJanus {
  /** ws://127.0.0.1:port (the Janus API over websockets; JANUS_URL). */
  url: string;
  port: number;
  /** JANUS_API_SECRET. */
  apiSecret: string;
  /** Everything Janus printed so far. */
  output(): string;
  stop(): Promise<void>;
  /** At once, for a process that is exiting (no waiting, no cleanup). */
  kill(): void;
}

/** The shared objects of a folder but `keep`, for a `disable` list. */
function allBut(folder: string, keep: string): string {
  return readdirSync(join(JANUS_LIB, folder))
    .filter((name) => name.endsWith('.so') && name !== keep)
    .join(',');
}

export async function startJanus(options: { apiSecret?: string } = {}): Promise<TestJanus> {
  const port = await freePort();
  const apiSecret = options.apiSecret ?? `test-secret-${port}`;
  const dir = mkdtempSync(join(tmpdir(), 'janus-test-'));
  writeFileSync(
    join(dir, 'janus.jcfg'),
    `general: {
  configs_folder = "${dir}"
  plugins_folder = "${JANUS_LIB}/plugins"
  transports_folder = "${JANUS_LIB}/transports"
  events_folder = "${JANUS_LIB}/events"
  loggers_folder = "${JANUS_LIB}/loggers"
  debug_level = 4
  server_name = "meetings-test"
  session_timeout = 60
  api_secret = "${apiSecret}"
  protected_folders = []
}
plugins: { disable = "${allBut('plugins', 'libjanus_videoroom.so')}" }
transports: { disable = "${allBut('transports', 'libjanus_websockets.so')}" }
loggers: { disable = "${allBut('loggers', '')}" }
events: { broadcast = false }
media: { rtp_port_range = "40000-60000" }
nat: {
  nice_debug = false
  ignore_mdns = true
}
`,
  );
  writeFileSync(
    join(dir, 'janus.transport.websockets.jcfg'),
    `general: {
  json = "plain"
  ws = true
  ws_port = ${port}
  ws_ip = "127.0.0.1"
  wss = false
}
admin: { admin_ws = false admin_wss = false }
`,
  );
  // No rooms of its own: the meeting server creates one per meeting.
  writeFileSync(join(dir, 'janus.plugin.videoroom.jcfg'), 'general: { }\n');

  const child: ChildProcess = spawn(JANUS_BIN, ['-C', join(dir, 'janus.jcfg'), '-F', dir, '-o'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      cleanup();
      throw new Error(`janus exited (${child.exitCode ?? child.signalCode}) before listening: ${output.slice(-3000)}`);
    }
    if (await canConnect(port)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      cleanup();
      throw new Error(`janus did not listen on ${port} within 15 s: ${output.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `ws://127.0.0.1:${port}`,
    port,
    apiSecret,
    output: () => output,
    kill: () => {
      child.kill('SIGKILL');
    },
    stop: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          cleanup();
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', done);
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}
