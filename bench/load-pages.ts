import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, normalize, resolve } from 'node:path';

/**
 * What the load benchmarks serve besides our own server: the host page (another origin, with the
 * 800 x 600 iframe) and the plain three.js page with its GLBs and three from node_modules.
 *
 * Origins: our app is http://127.0.0.1:{app port}; this server answers on another port, as
 * http://localhost:{port} for the host page and http://127.0.0.1:{port} for the plain page. The
 * host is thus another site than both framed pages, so Chromium gives each iframe its own renderer
 * process, as a real embed on a customer's site gets.
 */

const ROOT = resolve(import.meta.dirname, '..');
const THREE_DIR = join(ROOT, 'node_modules/three');

/** The size of the iframe, as in issue 9. */
export const FRAME_WIDTH = 800;
export const FRAME_HEIGHT = 600;

/** The message the plain page posts to its host after its first frame. */
export const PLAIN_READY = 'plainready';

/**
 * The host page: a message listener (installed before the iframe exists) that stamps every
 * message with performance.now(), which counts from the host page's navigation start; then the
 * iframe. The benchmark reads window.__bench. Once the viewer says `viewerready` the page makes
 * its first host-API call as a page that drives the viewer does (api.init, then getCamera, which
 * any page may call: DESIGN.md 4.3); the answer's time (and error, if any) is among the messages.
 */
export function hostPage(src: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Load benchmark host</title>
<style>html,body{margin:0;background:#fff}iframe{border:0;display:block}</style>
<script>
window.__bench = { messages: [] };
addEventListener('message', function (e) {
  var type = e.data && typeof e.data === 'object' ? String(e.data.type) : String(e.data);
  var error = e.data && typeof e.data === 'object' && e.data.error ? String(e.data.error) : undefined;
  window.__bench.messages.push({ type: type, t: performance.now(), origin: e.origin, error: error });
  if (type === 'viewerready' && !window.__bench.asked) {
    window.__bench.asked = true;
    e.source.postMessage({ type: 'api.init' }, e.origin);
  } else if (type === 'api.init.result' && !window.__bench.called) {
    window.__bench.called = true;
    e.source.postMessage({ type: 'api.request', requestId: 'bench-camera', func: 'getCamera', arguments: {} }, e.origin);
  }
});
</script></head><body>
<iframe src="${escapeAttribute(src)}" width="${FRAME_WIDTH}" height="${FRAME_HEIGHT}" allow="fullscreen; xr-spatial-tracking"></iframe>
</body></html>`;
}

/**
 * The plain three.js page, written the way a person who picks plain three.js writes one: three
 * from an import map, fetch the GLB, GLTFLoader.parseAsync, one hemisphere light, a camera framed
 * on the bounding sphere, one render, and a message to the host after the next animation frame
 * (the frame is then on screen). No environment map, no shadows, no post-processing.
 */
export function plainPage(glbUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Plain three.js</title>
<style>html,body{margin:0;height:100%;overflow:hidden}canvas{display:block}</style>
<script type="importmap">{"imports":{"three":"/three/build/three.module.js","three/addons/":"/three/examples/jsm/"}}</script>
</head><body>
<script type="module">
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

const renderer = new THREE.WebGLRenderer({ antialias: true });
renderer.setPixelRatio(window.devicePixelRatio);
renderer.setSize(window.innerWidth, window.innerHeight);
document.body.appendChild(renderer.domElement);

const scene = new THREE.Scene();
scene.add(new THREE.HemisphereLight(0xffffff, 0x444444, 3));
const camera = new THREE.PerspectiveCamera(45, window.innerWidth / window.innerHeight, 0.1, 1000);

const response = await fetch(${JSON.stringify(glbUrl)});
const gltf = await new GLTFLoader().parseAsync(await response.arrayBuffer(), '');
scene.add(gltf.scene);

const sphere = new THREE.Box3().setFromObject(gltf.scene).getBoundingSphere(new THREE.Sphere());
const distance = sphere.radius / Math.sin(THREE.MathUtils.degToRad(camera.fov / 2));
camera.position.copy(sphere.center).add(new THREE.Vector3(0.6, 0.4, 1).normalize().multiplyScalar(distance));
camera.near = distance / 100;
camera.far = distance * 100;
camera.updateProjectionMatrix();
camera.lookAt(sphere.center);

renderer.render(scene, camera);
requestAnimationFrame(() => window.parent.postMessage({ type: ${JSON.stringify(PLAIN_READY)} }, '*'));
</script></body></html>`;
}

function escapeAttribute(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.html': 'text/html; charset=utf-8',
  '.glb': 'model/gltf-binary',
};

export interface PagesServer {
  port: number;
  /** The host page framing `src`, on http://localhost:{port}. */
  hostUrl(src: string): string;
  /** The plain page for the GLB registered as `name`, on http://127.0.0.1:{port}. */
  plainUrl(name: string): string;
  /** Any path of this server on the plain page's origin (http://127.0.0.1:{port}). */
  url(path: string): string;
  close(): Promise<void>;
}

/**
 * Serves /host.html?src=..., /plain.html?glb=NAME, /models/NAME.glb (from `glbs`, in memory) and
 * /three/** (node_modules/three, read from disk on each request like a static server). No
 * compression, no caching headers: every run uses a fresh browser profile anyway. `extra`: more
 * files by path (another benchmark's pages and data), served the same way on both origins.
 */
export async function startPagesServer(glbs: Record<string, Uint8Array>, extra: Record<string, { type: string; body: string | Uint8Array }> = {}): Promise<PagesServer> {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, type: string, body: string | Uint8Array) => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
      res.end(body);
    };
    const file = extra[url.pathname];
    if (file) return send(200, file.type, file.body);
    if (url.pathname === '/host.html') return send(200, TYPES['.html'], hostPage(url.searchParams.get('src') ?? 'about:blank'));
    // No icon (a 404 would show up among the pages' console errors).
    if (url.pathname === '/favicon.ico') return send(200, 'image/x-icon', new Uint8Array(0));
    if (url.pathname === '/plain.html') {
      const name = url.searchParams.get('glb') ?? '';
      if (!glbs[name]) return send(404, 'text/plain', `no model ${name}`);
      return send(200, TYPES['.html'], plainPage(`/models/${encodeURIComponent(name)}.glb`));
    }
    const model = /^\/models\/([^/]+)\.glb$/.exec(url.pathname);
    if (model) {
      const bytes = glbs[decodeURIComponent(model[1])];
      return bytes ? send(200, TYPES['.glb'], bytes) : send(404, 'text/plain', 'no such model');
    }
    if (url.pathname.startsWith('/three/')) {
      const file = normalize(join(THREE_DIR, decodeURIComponent(url.pathname.slice('/three/'.length))));
      if (!file.startsWith(THREE_DIR)) return send(403, 'text/plain', 'forbidden');
      try {
        const body = await readFile(file);
        const ext = /\.[a-z]+$/.exec(file)?.[0] ?? '';
        return send(200, TYPES[ext] ?? 'application/octet-stream', body);
      } catch {
        return send(404, 'text/plain', 'not found');
      }
    }
    return send(404, 'text/plain', 'not found');
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  // Dual stack where the machine has IPv6, so that 'localhost' answers on ::1 as on 127.0.0.1.
  const port = await new Promise<number>((res, rej) => {
    const listen = (host: string, fallback?: string) => {
      server.once('error', (error) => (fallback ? listen(fallback) : rej(error)));
      server.listen(0, host, () => {
        const a = server.address();
        res(typeof a === 'object' && a ? a.port : 0);
      });
    };
    listen('::', '127.0.0.1');
  });
  return {
    port,
    hostUrl: (src) => `http://localhost:${port}/host.html?src=${encodeURIComponent(src)}`,
    plainUrl: (name) => `http://127.0.0.1:${port}/plain.html?glb=${encodeURIComponent(name)}`,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise((res) => {
        server.closeAllConnections();
        server.close(() => res());
      }),
  };
}
