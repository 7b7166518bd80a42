import { signTestToken } from '../../src/server/auth/tokens';
import { TOKEN_STORAGE_KEY } from '../../src/protocol/auth';
import { expect, test, type Frame, type Page } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Euler, MathUtils, Quaternion } from 'three';
import { importModel } from '../../src/server/import';
import { HOST_FUNCTION_NAMES } from '../../src/protocol/host-api';
import { MODELS, store, underLock } from './helpers';
import { decodePng } from './png';

/**
 * The host-page API across origins: a host page at one origin (the test server's, 127.0.0.1 or
 * localhost) embeds the viewer from the other and drives it through ViewerClient, served by the
 * viewer's server as /api/viewer-client.js. Every function is called and its result and effect on
 * the viewer checked; a page outside a scene's allowlist changes nothing and hears nothing; 10,000
 * fuzzed messages leave the viewer without an uncaught exception and still answering.
 */

const MODEL = 'InterpolationTest.glb';
type Vec = [number, number, number];

/**
 * The viewer at `localhost` (the test server), the host page at `127.0.0.1` on a port of its own,
 * served by a small server of this file: both loopback addresses, so Chromium's local-network
 * checks treat them as it would a public host page and a public viewer.
 */
let hostServer: Server | null = null;
/** A second such server: an origin no scene lists. */
let strangerServer: Server | null = null;
let hostHtml = '';
let hostOrigin = '';
let strangerOrigin = '';
test.beforeAll(async () => {
  const serve = async () => {
    const server = createServer((request, response) => {
      if (request.url?.startsWith('/host-page.html')) {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        response.end(hostHtml);
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };
  ({ server: hostServer, origin: hostOrigin } = await serve());
  ({ server: strangerServer, origin: strangerOrigin } = await serve());
});
test.afterAll(async () => {
  await new Promise((resolve) => hostServer?.close(resolve));
  await new Promise((resolve) => strangerServer?.close(resolve));
});

function origins(baseURL: string | undefined) {
  const viewer = new URL(baseURL!);
  viewer.hostname = 'localhost';
  return { host: hostOrigin, viewer: viewer.origin, stranger: strangerOrigin };
}

/** A scene of its own with the model and the given hostOrigins (once per run). */
async function scene(id: string, hostOrigins: string[] | undefined): Promise<string> {
  const s = await store();
  await underLock(`scene-${id}`, async () => {
    if (!(await s.getScene(id))) await importModel(s, { path: join(MODELS, MODEL) }, { sceneId: id, name: id });
    await s.updateScene(id, (current) => {
      const next = { ...current };
      if (hostOrigins) next.hostOrigins = hostOrigins;
      else delete next.hostOrigins;
      return next;
    });
  });
  return id;
}

/**
 * Opens the host page with the viewer of `sceneId` in an iframe: at the host origin (served by the
 * test's server), at the viewer's own origin ('same'), or at an origin no scene lists ('stranger').
 */
async function openHost(page: Page, baseURL: string | undefined, sceneId: string, at: 'host' | 'same' | 'stranger' = 'host'): Promise<Frame> {
  const { host, viewer, stranger } = origins(baseURL);
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>host</title></head><body style="margin:0">
<iframe id="viewer" src="${viewer}/embed/${sceneId}?instanceId=left" style="width:800px;height:500px;border:0"></iframe>
<script type="module">
import { ViewerClient } from '${viewer}/api/viewer-client.js';
window.events = [];
// Every message the page receives, as sent (the token handed over must never come back).
window.received = [];
window.addEventListener('message', (e) => window.received.push(JSON.stringify(e.data)));
const client = new ViewerClient(document.getElementById('viewer'));
client.on('*', (data, event) => window.events.push({ event, data }));
window.called = new Set();
window.call = async (func, args) => {
  window.called.add(func);
  try { return { ok: await client.call(func, args) }; } catch (error) { return { error: error.message }; }
};
window.ready = client.ready().then((info) => info, (error) => ({ error: error.message }));
window.client = client;
</script></body></html>`;
  hostHtml = html;
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  (page as unknown as { __errors: string[] }).__errors = errors;
  if (at === 'same') {
    // The host page served at the viewer's own origin (a page of the same site embedding it).
    await page.route(`${viewer}/same-origin-host.html`, (route) => route.fulfill({ contentType: 'text/html', body: html }));
    await page.goto(`${viewer}/same-origin-host.html`);
  } else await page.goto(`${at === 'host' ? host : stranger}/host-page.html`);
  const frame = await (await page.locator('#viewer').elementHandle())!.contentFrame();
  if (!frame) throw new Error('The viewer frame is missing.');
  await frame.waitForURL(/\/embed\//);
  return frame;
}

async function call(page: Page, func: string, args?: unknown): Promise<any> {
  return page.evaluate(([f, a]) => (window as any).call(f, a), [func, args] as const);
}
async function ok(page: Page, func: string, args?: unknown): Promise<any> {
  const result = await call(page, func, args);
  expect(result.error, `${func} failed`).toBeUndefined();
  return result.ok;
}
async function hostEvents(page: Page, name?: string): Promise<any[]> {
  return page.evaluate((n) => (window as any).events.filter((e: any) => !n || e.event === n), name);
}
/** Waits for the viewer's next frame (the sync system applied the ECS). */
async function frameDone(frame: Frame) {
  await frame.evaluate(() => (window as any).__viewer.viewer.nextFrame());
}
async function objectState(frame: Frame, name: string) {
  await frameDone(frame);
  return frame.evaluate((n) => {
    const viewer = (window as any).__viewer.viewer;
    let found: any = null;
    for (const record of viewer.world.models.values()) found ??= record.root.getObjectByName(n);
    if (!found) return null;
    return { position: found.position.toArray(), quaternion: found.quaternion.toArray(), scale: found.scale.toArray(), visible: found.visible };
  }, name);
}
const close = (a: number[], b: number[], eps = 1e-3) => a.every((v, i) => Math.abs(v - b[i]) < eps);

test.describe.configure({ mode: 'serial' });

test('a host page of another origin calls every function and sees its effect', async ({ page, baseURL }) => {
  test.setTimeout(300_000);
  const { host } = origins(baseURL);
  const sceneId = await scene('host-api-open', [host]);
  const frame = await openHost(page, baseURL, sceneId);
  const info = await page.evaluate(() => (window as any).ready);
  expect(info.error).toBeUndefined();
  expect(info).toMatchObject({ instanceId: 'left', mayChange: true });
  expect(await hostEvents(page, 'viewerready')).toEqual([{ event: 'viewerready', data: { sceneId: 'host-api-open' } }]);
  expect(info.functions).toEqual(HOST_FUNCTION_NAMES);
  expect((await hostEvents(page, 'viewerready')).length + (await hostEvents(page, 'viewerinit')).length).toBeGreaterThan(0);

  // ---- models
  const models = await ok(page, 'listModels');
  expect(models).toHaveLength(1);
  const modelId = models[0].modelId;
  expect(models[0]).toMatchObject({ visible: true, animations: 9, materials: 10 });
  expect((await ok(page, 'setModelVisibility', { modelId, visible: false })).visible).toBe(false);
  await frameDone(frame);
  expect(await frame.evaluate(async () => [...(window as any).__viewer.viewer.world.models.values()][0].root.visible)).toBe(false);
  await ok(page, 'setModelVisibility', { modelId, visible: true });
  expect((await call(page, 'setModelVisibility', { modelId: 'nope', visible: true })).error).toBe("setModelVisibility failed: There is no loaded model 'nope'.");

  // ---- objects: the ECS is written, the Object3D follows in the next frame
  const tree = await ok(page, 'getNodeTree', { modelId });
  const names = JSON.stringify(tree);
  expect(names).toContain('"name":"Cube001"');
  const cube = await ok(page, 'getObjectByName', { name: 'Cube001' });
  expect(cube).toMatchObject({ modelId, name: 'Cube001' });
  expect(await ok(page, 'getObjectByName', { name: 'no such node' })).toBeNull();
  expect(await ok(page, 'getNode', { modelId, nodeId: cube.nodeId })).toEqual(cube);
  const ref = { modelId, nodeId: cube.nodeId };
  const moved = await ok(page, 'setObjectTranslation', { ...ref, translation: [1, 2, 3] });
  expect(moved.translation).toEqual([1, 2, 3]);
  expect((await objectState(frame, 'Cube001'))!.position).toEqual([1, 2, 3]);
  const turned = await ok(page, 'setObjectRotation', { ...ref, rotation: [10, 45, 30] });
  expect(close(turned.rotation, [10, 45, 30])).toBe(true);
  const expected = new Quaternion().setFromEuler(new Euler(MathUtils.degToRad(10), MathUtils.degToRad(45), MathUtils.degToRad(30), 'XYZ'));
  expect(close((await objectState(frame, 'Cube001'))!.quaternion, expected.toArray())).toBe(true);
  expect((await ok(page, 'setObjectScale', { ...ref, scale: [2, 2, 2] })).scale).toEqual([2, 2, 2]);
  expect((await objectState(frame, 'Cube001'))!.scale).toEqual([2, 2, 2]);
  expect((await call(page, 'setObjectScale', { ...ref, scale: [0, 1, 1] })).error).toMatch(/scale must not have a 0 component/);
  expect((await call(page, 'setObjectRotation', { ...ref, rotation: [0, 'x', 0] })).error).toBe('setObjectRotation: arguments.rotation[1]: rotation[1] must be a number');
  await ok(page, 'setObjectVisibility', { ...ref, visible: false });
  expect((await objectState(frame, 'Cube001'))!.visible).toBe(false);
  await ok(page, 'setObjectVisibility', { ...ref, visible: true });
  await ok(page, 'highlightObject', { ...ref, color: '#ff0000' });
  expect(await frame.evaluate(() => !!(window as any).__viewer.viewer.context.scene.getObjectByName('host-api-highlight'))).toBe(true);
  await ok(page, 'highlightObject', { nodeId: null });
  expect(await frame.evaluate(() => !!(window as any).__viewer.viewer.context.scene.getObjectByName('host-api-highlight'))).toBe(false);

  // ---- materials and textures
  const materials = await ok(page, 'listMaterials', { modelId });
  expect(materials).toHaveLength(10);
  const mat = materials[0];
  const before = await ok(page, 'getMaterial', { modelId, materialId: mat.materialId });
  expect(before).toMatchObject({ materialId: mat.materialId, name: mat.name });
  const red = await ok(page, 'setMaterial', { modelId, materialId: mat.materialId, properties: { color: '#ff0000', roughness: 0.25 } });
  expect(red).toMatchObject({ color: '#ff0000', roughness: 0.25 });
  const { viewer: viewerOrigin } = origins(baseURL);
  const { textureId } = await ok(page, 'addTexture', { url: `${viewerOrigin}/textures/waternormals.jpg` });
  expect(textureId).toMatch(/^api-texture-/);
  const mapped = await ok(page, 'setMaterial', { modelId, materialId: mat.materialId, properties: { map: { textureId } } });
  expect(mapped.maps.map).toBe(textureId);
  expect((await call(page, 'addTexture', { url: `${viewerOrigin}/textures/missing.jpg` })).error).toMatch(/could not be loaded/);

  // ---- camera (with its start and stop events)
  const camera = await ok(page, 'getCamera');
  expect(camera).toMatchObject({ projection: 'Perspective', mode: 'Orbit' });
  const target: Vec = camera.target;
  const moveTo: Vec = [target[0] + 6, target[1] + 4, target[2] + 6];
  const after = await ok(page, 'setCamera', { position: moveTo, target, transition: true });
  expect(close(after.position, moveTo, 1e-2)).toBe(true);
  await expect.poll(async () => (await hostEvents(page, 'camerastop')).length).toBeGreaterThan(0);
  expect((await hostEvents(page, 'camerastart')).length).toBeGreaterThan(0);
  await ok(page, 'fitCamera', { transition: false });
  expect((await ok(page, 'setCameraConfig', { fov: 30 })).fov).toBe(30);
  expect(await frame.evaluate(() => (window as any).__viewer.viewer.navigation.perspectiveCamera.fov)).toBe(30);
  expect((await call(page, 'setCameraConfig', { near: 10, far: 5 })).error).toMatch(/near \(10\) must be less than far \(5\)/);
  expect((await ok(page, 'setCameraConfig', { controls: 'editor' })).controls).toBe('editor');
  await ok(page, 'setCameraConfig', { controls: 'simple', fov: 45 });
  expect((await ok(page, 'setNavigationMode', { mode: 'Plan' })).mode).toBe('Plan');
  await ok(page, 'setNavigationMode', { mode: 'Orbit' });
  expect((await ok(page, 'setProjection', { projection: 'Orthographic' })).projection).toBe('Orthographic');
  await ok(page, 'setProjection', { projection: 'Perspective' });
  await ok(page, 'fitCamera', { transition: false });

  // ---- picking and projection
  const hit = await ok(page, 'pickFromScreen', { x: 400, y: 250 });
  expect(hit).not.toBeNull();
  expect(hit.modelId).toBe(modelId);
  const screen = await ok(page, 'getWorldToScreenCoordinates', { position: hit.position });
  expect(screen.visible).toBe(true);
  expect(Math.abs(screen.x - 400) + Math.abs(screen.y - 250)).toBeLessThan(2);
  expect(await ok(page, 'pickFromScreen', { x: 2, y: 2 })).toBeNull();

  // ---- hotspots: positions arrive when the camera moves, without a loop of the host's own
  expect((await ok(page, 'registerHotspots', { points: [{ id: 'h', position: hit.position }] })).count).toBe(1);
  await expect.poll(async () => (await hostEvents(page, 'hotspots')).length).toBeGreaterThan(0);
  const cam2 = await ok(page, 'getCamera');
  const sent = (await hostEvents(page, 'hotspots')).length;
  await ok(page, 'setCamera', { position: [cam2.position[0] + 1, cam2.position[1], cam2.position[2]], transition: true });
  await expect.poll(async () => (await hostEvents(page, 'hotspots')).length).toBeGreaterThan(sent + 1);
  const last = (await hostEvents(page, 'hotspots')).at(-1).data.points[0];
  const now = await ok(page, 'getWorldToScreenCoordinates', { position: hit.position });
  expect(last.id).toBe('h');
  expect(Math.abs(last.x - now.x) + Math.abs(last.y - now.y)).toBeLessThan(1);
  expect((await ok(page, 'unregisterHotspots', {})).count).toBe(0);

  // ---- rendering and quality
  const quality = await ok(page, 'getQuality');
  expect(['low', 'medium', 'high']).toContain(quality.tier);
  const medium = await ok(page, 'setQuality', { tier: 'medium' });
  expect(medium).toMatchObject({ tier: 'medium', postprocessing: true });
  const config = await ok(page, 'getPostProcessing');
  expect(config.bloom).toBeDefined();
  const changed = await ok(page, 'setPostProcessing', { config: { bloom: { enabled: !config.bloom.enabled } } });
  expect(changed.bloom.enabled).toBe(!config.bloom.enabled);
  await ok(page, 'setQuality', { tier: 'low' });
  expect((await call(page, 'getPostProcessing')).error).toMatch(/Custom effects not initialized!/);

  // ---- scene settings
  const settings = await ok(page, 'getSceneSettings');
  expect(settings).toHaveProperty('sunAzimuth');
  expect((await ok(page, 'setSceneSettings', { settings: { ambientLightIntensity: 0.7 } })).ambientLightIntensity).toBe(0.7);
  expect((await ok(page, 'setSun', { sunAzimuth: 30, sunElevation: 40 })).sunAzimuth).toBe(30);
  expect((await ok(page, 'setFog', { fogEnabled: true, fogDensity: 0.01, fogColor: '#c0c0c0' })).fogColor).toBe('c0c0c0');
  expect(await frame.evaluate(() => !!(window as any).__viewer.viewer.context.scene.fog)).toBe(true);
  await ok(page, 'setFog', { fogEnabled: false });
  expect((await ok(page, 'setShadowPlane', { shadowPlaneEnabled: true, shadowPlaneOpacity: 0.3 })).shadowPlaneEnabled).toBe(true);
  expect((await ok(page, 'setWater', { waterEnabled: false })).waterEnabled).toBe(false);
  expect((await ok(page, 'setBackground', { backgroundType: 'color', backgroundColor1: '#336699' })).backgroundColor1).toBe('336699');
  expect((await ok(page, 'setEnvironment', { environment: null })).environment).toBeNull();
  expect((await call(page, 'setSun', { sunElevation: 120 })).error).toMatch(/^setSun: arguments\.sunElevation: /);

  // ---- animations (and their events)
  const animations = await ok(page, 'listAnimations');
  expect(animations).toHaveLength(9);
  const anim = { modelId, animation: animations[0].name };
  expect((await ok(page, 'playAnimation', anim)).status).toBe('playing');
  await expect.poll(async () => (await hostEvents(page, 'animation')).some((e) => e.data.eventType === 'start')).toBe(true);
  // The event's fields, as the specification lists them.
  const started = (await hostEvents(page, 'animation')).find((e) => e.data.eventType === 'start')!.data;
  expect(Object.keys(started).sort()).toEqual(['animationName', 'duration', 'eventType', 'isPlaying', 'loop', 'modelId', 'time', 'weight']);
  expect(started).toMatchObject({ modelId, animationName: animations[0].name, eventType: 'start', isPlaying: true, loop: true, weight: 1 });
  expect(started.duration).toBeCloseTo(animations[0].duration, 5);
  expect(started.time).toBeGreaterThanOrEqual(0);
  expect(started.time).toBeLessThanOrEqual(animations[0].duration);
  expect((await ok(page, 'pauseAnimation', anim)).status).toBe('paused');
  await expect.poll(async () => (await hostEvents(page, 'animation')).some((e) => e.data.eventType === 'pause')).toBe(true);
  const paused = (await hostEvents(page, 'animation')).find((e) => e.data.eventType === 'pause')!.data;
  expect(paused).toMatchObject({ modelId, animationName: animations[0].name, isPlaying: false, loop: true });
  expect(paused.duration).toBeCloseTo(animations[0].duration, 5);
  expect((await ok(page, 'seekAnimation', { ...anim, time: 0.5 })).time).toBeCloseTo(0.5, 5);
  expect((await ok(page, 'resumeAnimation', anim)).status).toBe('playing');
  expect((await ok(page, 'setAnimationSpeed', { speed: 2 })).speed).toBe(2);
  expect((await ok(page, 'stopAnimation', anim)).status).toBe('stopped');
  expect((await call(page, 'playAnimation', { modelId, animation: 'nope' })).error).toMatch(/has no animation "nope"/);

  // ---- tools
  expect((await ok(page, 'activateTool', { tool: 'length-measure-tool' })).tool).toBe('length-measure-tool');
  await expect.poll(async () => (await hostEvents(page, 'tool')).at(-1)?.data.tool).toBe('length-measure-tool');
  expect(await ok(page, 'listMeasurements')).toEqual([]);
  expect(await ok(page, 'listSectionPlanes')).toEqual([]);
  expect((await ok(page, 'activateTool', { tool: null })).tool).toBeNull();

  // ---- pictures: the offscreen frame leaves the view where it was
  const shot = await ok(page, 'screenshot', { width: 320 });
  expect(shot).toMatchObject({ width: 320, height: 200, mimeType: 'image/png' });
  expect(decodePng(Buffer.from(shot.dataUrl.split(',')[1], 'base64')).width).toBe(320);
  const cameraBefore = await ok(page, 'getCamera');
  const poseOf = () => frame.evaluate(() => {
    const camera = (window as any).__viewer.viewer.world.render.camera;
    return [...camera.position.toArray(), ...camera.quaternion.toArray(), camera.fov];
  });
  const poseBefore = await poseOf();
  const top = await ok(page, 'renderOffscreenFrame', { width: 320, height: 240, position: [0, 50, 0.01], target: [0, 0, 0], fit: true, transparent: true });
  const png = decodePng(Buffer.from(top.dataUrl.split(',')[1], 'base64'));
  expect([png.width, png.height]).toEqual([320, 240]);
  let clear = 0;
  let opaque = 0;
  for (let i = 3; i < png.data.length; i += 4) png.data[i] === 0 ? clear++ : opaque++;
  expect(clear).toBeGreaterThan(0);
  expect(opaque).toBeGreaterThan(0);
  expect(await ok(page, 'getCamera')).toEqual(cameraBefore);
  expect(await poseOf()).toEqual(poseBefore);
  expect((await call(page, 'renderOffscreenFrame', { width: 0, height: 10 })).error).toBe('renderOffscreenFrame: arguments.width: width must be at least 1');

  // ---- annotations are saved as the scene's comments: a page whose user is not signed in (a
  // cross-origin frame cannot even read the viewer's stored sign-in) is told, and nothing is made.
  // The saved path is the next test's.
  const refused = await call(page, 'createAnnotation', { position: hit.position, title: 'Valve', eye: [5, 5, 5], target: hit.position });
  expect(refused.error).toMatch(/^createAnnotation failed: Sign in required/);
  expect(await ok(page, 'listAnnotations')).toEqual([]);
  for (const func of ['updateAnnotation', 'gotoAnnotation', 'removeAnnotation']) {
    expect((await call(page, func, { id: 'nope', ...(func === 'updateAnnotation' ? { title: 'x' } : {}) })).error, func).toMatch(/annotation/i);
  }
  // A token the model service refuses is not kept (the saved path with a real one is a test of its own).
  expect((await call(page, 'setAuthToken', { token: 'e30.e30.bm90LWEtc2lnbmF0dXJl' })).error).toMatch(/^setAuthToken failed: The model service refused the token: Invalid token/);
  expect((await call(page, 'setAuthToken', { token: 'not a jwt' })).error).toBe('setAuthToken: arguments.token: token must be a JWT: three base64url parts joined by dots');
  expect(await ok(page, 'setAuthToken', { token: null })).toEqual({ signedIn: false, firstName: null, lastName: null, expiresAt: null });
  expect((await call(page, 'createAnnotation', { position: hit.position, title: 'Valve' })).error).toMatch(/^createAnnotation failed: Sign in required/);

  // ---- a click in the viewer: raycast and selection
  const box = (await page.locator('#viewer').boundingBox())!;
  await page.mouse.click(box.x + 400, box.y + 250);
  await expect.poll(async () => (await hostEvents(page, 'raycast')).length).toBeGreaterThan(0);
  const raycast = (await hostEvents(page, 'raycast')).at(-1).data;
  expect(raycast).toMatchObject({ modelId });
  expect(raycast.position).toHaveLength(3);
  expect((await hostEvents(page, 'selection')).at(-1).data.modelId).toBe(modelId);

  // ---- a length measured with the tool (two clicks on the model): the measurement event and the list
  await ok(page, 'activateTool', { tool: 'length-measure-tool' });
  // Below right of the centre: its label stays clear of the section plane's double-click below.
  const from = await ok(page, 'pickFromScreen', { x: 430, y: 300 });
  const to = await ok(page, 'pickFromScreen', { x: 480, y: 315 });
  expect(from).not.toBeNull();
  expect(to).not.toBeNull();
  await page.mouse.click(box.x + 430, box.y + 300);
  await page.mouse.click(box.x + 480, box.y + 315);
  await expect.poll(async () => (await hostEvents(page, 'measurement')).map((e) => e.data.action)).toContain('created');
  const measured = (await hostEvents(page, 'measurement')).find((e) => e.data.action === 'created')!.data;
  expect(measured).toMatchObject({ kind: 'length' });
  expect(measured.points).toHaveLength(2);
  const [m0, m1] = measured.points as Vec[];
  expect(measured.value).toBeCloseTo(Math.hypot(m1[0] - m0[0], m1[1] - m0[1], m1[2] - m0[2]), 5);
  expect(measured.value).toBeGreaterThan(0);
  expect(measured.label).toMatch(/m$/);
  // The points are where the clicks hit (or a vertex snapped to near them).
  expect(Math.hypot(m0[0] - from.position[0], m0[1] - from.position[1], m0[2] - from.position[2])).toBeLessThan(0.5);
  expect(Math.hypot(m1[0] - to.position[0], m1[1] - to.position[1], m1[2] - to.position[2])).toBeLessThan(0.5);
  expect(await ok(page, 'listMeasurements')).toEqual([{ id: measured.id, kind: 'length', value: measured.value, label: measured.label, points: measured.points }]);
  await ok(page, 'activateTool', { tool: null });

  // ---- a section plane made with the tool: the section event and the list
  await ok(page, 'activateTool', { tool: 'section-tool' });
  // A double-click on a surface places the plane.
  await page.mouse.dblclick(box.x + 400, box.y + 250);
  await expect.poll(async () => (await hostEvents(page, 'section')).map((e) => e.data.action)).toContain('created');
  const planes = await ok(page, 'listSectionPlanes');
  expect(planes).toHaveLength(1);
  expect(planes[0].normal).toHaveLength(3);
  await ok(page, 'activateTool', { tool: null });

  // The load was followed from the start (the client listened before the scene was shown).
  const progress = await hostEvents(page, 'loadprogress');
  expect(progress.length).toBeGreaterThan(0);
  expect(progress.at(-1).data.modelsDone).toBe(progress.at(-1).data.modelsTotal);

  const called = await page.evaluate(() => [...(window as any).called]);
  expect(HOST_FUNCTION_NAMES.filter((name) => !called.includes(name))).toEqual([]);
  expect((page as unknown as { __errors: string[] }).__errors).toEqual([]);
});


test("annotations made through the API are saved as the scene's comments when the page's user may comment", async ({ page, baseURL }) => {
  test.setTimeout(240_000);
  const sceneId = await scene('host-api-annotations', undefined);
  const { token } = await signTestToken(process.env.E2E_DATA_DIR!, { firstName: 'Hana', lastName: 'Host' });
  await page.addInitScript(([key, value]) => localStorage.setItem(key, value), [TOKEN_STORAGE_KEY, JSON.stringify({ token, expiresAt: Date.now() + 3600_000 })] as const);
  await openHost(page, baseURL, sceneId, 'same');
  const info = await page.evaluate(() => (window as any).ready);
  expect(info.error).toBeUndefined();
  await expect.poll(async () => (await hostEvents(page, 'viewerready')).length, { timeout: 120_000 }).toBeGreaterThan(0);
  const hit = await ok(page, 'pickFromScreen', { x: 400, y: 250 });
  expect(hit).not.toBeNull();
  const ids = async () => ((await (await fetch(`${baseURL}/v1/scenes/${sceneId}/comments`)).json()) as { comments: { _id: string }[] }).comments.map((c) => c._id);

  const note = await ok(page, 'createAnnotation', { position: hit.position, title: 'Valve', eye: [5, 5, 5], target: hit.position });
  expect(note).toMatchObject({ title: 'Valve' });
  expect(await ok(page, 'listAnnotations')).toEqual([note]);
  // Saved: the model service lists it as a comment of the scene.
  await expect.poll(ids).toContain(note.id);
  // Its pin is drawn at the point: a click there is 'annotation.click'.
  const at = await ok(page, 'getWorldToScreenCoordinates', { position: hit.position });
  const box = (await page.locator('#viewer').boundingBox())!;
  await page.mouse.click(box.x + at.x, box.y + at.y);
  await expect.poll(async () => (await hostEvents(page, 'annotation.click')).map((e) => e.data.annotationId), { timeout: 20_000 }).toContain(note.id);
  expect((await ok(page, 'updateAnnotation', { id: note.id, title: 'Pump' })).title).toBe('Pump');
  expect((await ok(page, 'listAnnotations'))[0].title).toBe('Pump');
  const went = await ok(page, 'gotoAnnotation', { id: note.id, transition: false });
  expect(close(went.position, [5, 5, 5], 1e-2)).toBe(true);
  // A reload of the viewer finds it (it is the scene's comment, not the page's memory).
  await page.reload();
  await expect.poll(async () => (await hostEvents(page, 'viewerready')).length, { timeout: 120_000 }).toBeGreaterThan(0);
  await expect.poll(async () => (await ok(page, 'listAnnotations')).map((a: { id: string }) => a.id), { timeout: 30_000 }).toEqual([note.id]);
  await ok(page, 'removeAnnotation', { id: note.id });
  await expect.poll(ids).not.toContain(note.id);
  expect((await call(page, 'gotoAnnotation', { id: note.id })).error).toMatch(/There is no annotation/);
});

test("a host page of another site hands over its user's token: its annotations are saved, and a page not allowed cannot", async ({ page, baseURL }) => {
  test.setTimeout(420_000);
  const { host } = origins(baseURL);
  const sceneId = await scene('host-api-saved', [host]);
  const { token } = await signTestToken(process.env.E2E_DATA_DIR!, { firstName: 'Hana', lastName: 'Host' });
  const comments = async (id = sceneId) => ((await (await fetch(`${baseURL}/v1/scenes/${id}/comments`)).json()) as { comments: any[] }).comments;
  const before = (await comments()).map((c) => c._id);

  const frame = await openHost(page, baseURL, sceneId);
  const info = await page.evaluate(() => (window as any).ready);
  expect(info).toMatchObject({ mayChange: true });
  await expect.poll(async () => (await hostEvents(page, 'viewerready')).length, { timeout: 120_000 }).toBeGreaterThan(0);
  const hit = await ok(page, 'pickFromScreen', { x: 400, y: 250 });
  expect(hit).not.toBeNull();
  // The framed viewer sees no sign-in of its own: nothing is saved until the host hands a token over.
  expect((await call(page, 'createAnnotation', { position: hit.position, title: 'Valve' })).error).toMatch(/^createAnnotation failed: Sign in required/);
  const signedIn = await ok(page, 'setAuthToken', { token });
  expect(signedIn).toMatchObject({ signedIn: true, firstName: 'Hana', lastName: 'Host' });
  expect(signedIn.expiresAt).toBeGreaterThan(Date.now());
  // The viewer's own comment panel now acts for the same person.
  await expect(frame.getByTestId('comment-tool')).toBeEnabled({ timeout: 30_000 });

  // Threads a failed earlier run may have left in this scene are not this test's.
  const mine = (list: { id: string }[]) => list.filter((a) => !before.includes(a.id));
  let saved = { id: '' };
  await test.step('create, update, list, go to: each saved on the model service', async () => {
    const note = await ok(page, 'createAnnotation', { position: hit.position, title: 'Valve', text: 'It drips', eye: [5, 5, 5], target: hit.position });
    expect(note).toMatchObject({ title: 'Valve', text: 'It drips', eye: [5, 5, 5] });
    await expect.poll(async () => (await comments()).find((c) => c._id === note.id)?.author).toMatchObject({ firstName: 'Hana', lastName: 'Host' });
    expect((await ok(page, 'updateAnnotation', { id: note.id, title: 'Pump', text: 'It drips a lot' })).title).toBe('Pump');
    // The pin and the view move: the service keeps the new anchor and camera, the rest of the view stays.
    const moved: Vec = [hit.position[0] + 0.1, hit.position[1], hit.position[2]];
    const updated = await ok(page, 'updateAnnotation', { id: note.id, position: moved, eye: [6, 4, 6] });
    expect(updated).toMatchObject({ id: note.id, title: 'Pump', text: 'It drips a lot', eye: [6, 4, 6] });
    expect(close(updated.position, moved)).toBe(true);
    const stored = (await comments()).find((c) => c._id === note.id)!;
    expect(stored).toMatchObject({ title: 'Pump', text: 'It drips a lot' });
    expect(close(stored.anchor.position, moved)).toBe(true);
    expect(stored.view.position).toEqual([6, 4, 6]);
    expect(close(stored.view.target, hit.position)).toBe(true);
    expect((await call(page, 'updateAnnotation', { id: note.id, eye: hit.position })).error).toBe('updateAnnotation failed: eye and target must differ: the camera needs a direction to look in.');
    expect(mine(await ok(page, 'listAnnotations'))).toEqual([updated]);
    saved = note;
    const went = await ok(page, 'gotoAnnotation', { id: note.id, transition: false });
    expect(close(went.position, [6, 4, 6], 1e-2)).toBe(true);
    expect(close(went.target, hit.position, 1e-2)).toBe(true);
  });

  // The token never comes back to the page, and the viewer writes it nowhere.
  const received: string[] = await page.evaluate(() => (window as any).received);
  expect(received.length).toBeGreaterThan(0);
  expect(received.filter((m) => m.includes(token))).toEqual([]);
  const stored = await frame.evaluate(() => {
    // A framed page of another site may be refused its storage altogether (why the token is handed over).
    const dump = (read: () => Storage) => {
      try {
        const s = read();
        return Object.keys(s).map((k) => `${k}=${s.getItem(k)}`).join('\n');
      } catch (error) {
        return `blocked: ${(error as Error).name}`;
      }
    };
    return `${dump(() => localStorage)}\n${dump(() => sessionStorage)}\n${document.cookie}`;
  });
  expect(stored).not.toContain(token);

  await test.step('a reload forgets the token; the annotation is still there', async () => {
    await page.reload();
    await expect.poll(async () => (await hostEvents(page, 'viewerready')).length, { timeout: 120_000 }).toBeGreaterThan(0);
    await expect.poll(async () => mine(await ok(page, 'listAnnotations')).map((a) => a.id), { timeout: 30_000 }).toEqual([saved.id]);
    expect((await call(page, 'removeAnnotation', { id: saved.id })).error).toMatch(/^removeAnnotation failed: Sign in required/);
    expect((await comments()).map((c) => c._id)).toContain(saved.id);
  });

  await test.step('a page of an origin the scene does not list can neither hand a token over nor save', async () => {
    await openHost(page, baseURL, sceneId, 'stranger');
    expect((await page.evaluate(() => (window as any).ready)).error).toMatch(/may not use this viewer's API/);
    expect((await call(page, 'setAuthToken', { token })).error).toMatch(/may not use this viewer's API/);
    expect((await call(page, 'createAnnotation', { position: hit.position, title: 'Intruder' })).error).toMatch(/may not use this viewer's API/);
    expect((await call(page, 'removeAnnotation', { id: saved.id })).error).toMatch(/may not use this viewer's API/);
    expect((await comments()).map((c) => c._id).sort()).toEqual([...before, saved.id].sort());
  });

  await test.step('under the open default a page of another site may only read: the token is refused', async () => {
    const open = await scene('host-api-annotations', undefined);
    const openBefore = (await comments(open)).length;
    await openHost(page, baseURL, open);
    expect(await page.evaluate(() => (window as any).ready)).toMatchObject({ mayChange: false });
    await expect.poll(async () => (await hostEvents(page, 'viewerready')).length, { timeout: 120_000 }).toBeGreaterThan(0);
    expect((await call(page, 'setAuthToken', { token })).error).toMatch(/^'setAuthToken' changes the scene, and the page at http:\/\/127\.0\.0\.1:\d+ may only read/);
    expect((await call(page, 'createAnnotation', { position: hit.position, title: 'Nope' })).error).toMatch(/^'createAnnotation' changes the scene/);
    expect((await comments(open)).length).toBe(openBefore);
  });

  await test.step('the allowed host, with the token again, removes it', async () => {
    await openHost(page, baseURL, sceneId);
    await expect.poll(async () => (await hostEvents(page, 'viewerready')).length, { timeout: 120_000 }).toBeGreaterThan(0);
    await ok(page, 'setAuthToken', { token });
    expect(await ok(page, 'removeAnnotation', { id: saved.id })).toEqual({ ok: true });
    expect((await comments()).map((c) => c._id)).not.toContain(saved.id);
    expect((await call(page, 'gotoAnnotation', { id: saved.id })).error).toMatch(/There is no annotation/);
  });
  expect((page as unknown as { __errors: string[] }).__errors).toEqual([]);
});

test('a page outside the allowlist changes nothing and hears nothing', async ({ page, baseURL }) => {
  test.setTimeout(180_000);
  const sceneId = await scene('host-api-closed', ['https://only.example']);
  const frame = await openHost(page, baseURL, sceneId);
  const info = await page.evaluate(() => (window as any).ready);
  expect(info.error).toMatch(/may not use this viewer's API/);
  await frame.waitForFunction(() => (window as any).__viewer?.phase === 'ready', undefined, { timeout: 90_000 });
  const hidden = await call(page, 'setModelVisibility', { modelId: 'any', visible: false });
  expect(hidden.error).toMatch(/may not use this viewer's API/);
  const read = await call(page, 'listModels');
  expect(read.error).toMatch(/may not use this viewer's API/);
  expect(await frame.evaluate(() => [...(window as any).__viewer.viewer.world.models.values()][0].root.visible)).toBe(true);
  // The camera moves and the scene is clicked: no event reaches the page.
  await frame.evaluate(() => (window as any).__viewer.viewer.controls.rotate(1, 0.2, false));
  const box = (await page.locator('#viewer').boundingBox())!;
  await page.mouse.click(box.x + 400, box.y + 250);
  await frameDone(frame);
  await page.waitForTimeout(500);
  expect(await hostEvents(page)).toEqual([]);
});

test('10,000 fuzzed messages: no uncaught exception, and the viewer still answers', async ({ page, baseURL }) => {
  test.setTimeout(300_000);
  const { host } = origins(baseURL);
  const sceneId = await scene('host-api-open', [host]);
  const frame = await openHost(page, baseURL, sceneId);
  expect((await page.evaluate(() => (window as any).ready)).error).toBeUndefined();
  await frame.evaluate(() => {
    (window as any).__uncaught = [];
    window.addEventListener('error', (e) => (window as any).__uncaught.push(String(e.message)));
    window.addEventListener('unhandledrejection', (e) => (window as any).__uncaught.push(String(e.reason)));
  });
  const result = await page.evaluate(async (names) => {
    const target = (document.getElementById('viewer') as HTMLIFrameElement).contentWindow!;
    const viewerOrigin = new URL((document.getElementById('viewer') as HTMLIFrameElement).src).origin;
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const pick = (list: any[]) => list[Math.floor(random() * list.length)];
    // 100 kB: ten times the longest text argument (the viewer and the page are separate processes, so
    // every message is copied between them).
    const big = 'x'.repeat(100_000);
    const junk = (depth = 0): any =>
      pick([
        () => null,
        () => undefined,
        () => random() * 1e308,
        () => -0,
        () => NaN,
        () => big,
        () => (depth < 3 ? [junk(depth + 1), junk(depth + 1)] : []),
        () => JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}'),
        () => ({ modelId: 'x', nodeId: '0', translation: [random(), random(), random()] }),
        () => ({ width: 1e9, height: -1 }),
        () => new Date(),
        () => new Uint8Array(16),
      ])();
    let requests = 0;
    const answered = new Set<unknown>();
    const listener = (e: MessageEvent) => {
      if (e.source === target && e.data?.type === 'api.response') answered.add(e.data.requestId);
    };
    window.addEventListener('message', listener);
    for (let i = 0; i < 10_000; i++) {
      const r = random();
      let data: any;
      if (r < 0.6) {
        requests++;
        // Only functions that read: 10,000 changes would be a test of the scene, not of the API.
        data = { type: 'api.request', requestId: `f${i}`, func: pick([...names.filter((n: string) => /^(get|list)/.test(n)), '__proto__', 'constructor', big, 'nope']), arguments: junk() };
      } else if (r < 0.7) data = { type: 'api.request', requestId: junk(), func: junk(), arguments: junk() };
      else if (r < 0.8) data = { type: 'api.init', instanceId: junk() };
      else data = junk();
      target.postMessage(data, viewerOrigin);
    }
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      let mine = 0;
      for (const id of answered) if (typeof id === 'string' && id.startsWith('f')) mine++;
      if (mine >= requests) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    window.removeEventListener('message', listener);
    let mine = 0;
    for (const id of answered) if (typeof id === 'string' && id.startsWith('f')) mine++;
    return { requests, answered: mine, polluted: ({} as any).polluted };
  }, HOST_FUNCTION_NAMES as unknown as string[]);
  expect(result.answered).toBe(result.requests);
  expect(result.polluted).toBeUndefined();
  expect(await frame.evaluate(() => (window as any).__uncaught)).toEqual([]);
  expect(await frame.evaluate(() => ({} as any).polluted)).toBeUndefined();
  const camera = await ok(page, 'getCamera');
  expect(camera.position).toHaveLength(3);
  expect((page as unknown as { __errors: string[] }).__errors).toEqual([]);
});

test('the example host page (/api/example.html) loads the client module and its buttons drive the viewer', async ({ page, baseURL }) => {
  test.setTimeout(240_000);
  const sceneId = await scene('host-api-open', [origins(baseURL).host]);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const clientModule = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/viewer-client.js');
  await page.goto(`${baseURL}/api/example.html?scene=${sceneId}`);
  expect((await clientModule).status()).toBe(200);
  await expect(page.locator('#scene')).toHaveValue(sceneId);
  const log = page.getByTestId('event-log');
  // ViewerClient answered: the page lists the functions and makes a button per action.
  await expect(log).toContainText(/ready: \d+ functions/, { timeout: 120_000 });
  await expect(log).toContainText('registerHotspots →');
  const frame = (await (await page.locator('#viewer').elementHandle())!.contentFrame())!;
  const projection = () => frame.evaluate(() => (window as any).__viewer.viewer.navigation.projection);
  expect(await projection()).toBe('Perspective');

  await page.getByRole('button', { name: 'Get camera' }).click();
  await expect(log.locator('li').filter({ hasText: /Get camera → \{"position":\[/ })).toHaveCount(1);
  await page.getByRole('button', { name: 'Orthographic', exact: true }).click();
  await expect(log.locator('li').filter({ hasText: /Orthographic → .*"projection":"Orthographic"/ })).toHaveCount(1);
  await expect.poll(projection).toBe('Orthographic');
  // The viewer's navigation event reached the page's log.
  await expect(log.locator('li').filter({ hasText: /event navigation .*"projection":"Orthographic"/ }).first()).toBeVisible();
  await page.getByRole('button', { name: 'Perspective', exact: true }).click();
  await expect.poll(projection).toBe('Perspective');
  await expect(log.locator('li.error')).toHaveCount(0);
  expect(errors).toEqual([]);
});
