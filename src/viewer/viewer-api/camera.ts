import { Box3, MathUtils, Sphere, Vector3, type OrthographicCamera, type PerspectiveCamera } from 'three';
import { Visibility } from '../../../components';
import type { HostParsedArgs, HostResult } from '../../protocol/host-api';
import type { ApiContext, Impl, Vec3T } from '../viewer-api';
import { tuple } from './lookups';

/** Default margin of renderOffscreenFrame's fit. */
export const FIT_PADDING_DEFAULT = 1.1;

type CameraFunctions = Pick<
  Impl,
  'getCamera' | 'setCamera' | 'fitCamera' | 'setCameraConfig' | 'setNavigationMode' | 'setProjection' | 'screenshot' | 'renderOffscreenFrame'
>;

export interface ApiCamera {
  functions: CameraFunctions;
  /** The camera as getCamera answers it: the view pose (where a move ends) and the camera's settings. */
  cameraState(): HostResult<'getCamera'>;
  /** Starts the move through the navigation (throwing at once when the pose is refused); resolves when the camera arrives. */
  lookAt(position: Vec3T | undefined, target: Vec3T | undefined, transition: boolean): Promise<void>;
}

/** A picture as the host API answers it: its size, type and a data URL. */
export type Picture = { width: number; height: number; mimeType: string; dataUrl: string };

const toDataUrl = (blob: Blob): Promise<string> =>
  new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error ?? new Error('The picture could not be read.'));
    reader.readAsDataURL(blob);
  });

export const picture = async (blob: Promise<Blob>, width: number, height: number): Promise<Picture> => {
  const b = await blob;
  return { width, height, mimeType: b.type, dataUrl: await toDataUrl(b) };
};

const v1 = new Vector3();

/**
 * The host API's camera: its pose is read from the view pose (world.view, written by the
 * navigation) and moved through the navigation, which writes the pose at once, so a read right
 * after a move answers the pose asked for; screenshots and offscreen frames from another camera.
 */
export function createCameraFunctions(ctx: ApiContext): ApiCamera {
  const { viewer, world, options } = ctx;
  const view = world.view;
  const perspective = () => viewer.navigation.perspectiveCamera;
  const cameraState = (): HostResult<'getCamera'> => {
    const cam = perspective();
    const nav = viewer.navigation.state();
    return {
      position: tuple(view.positionEnd),
      target: tuple(view.targetEnd),
      fov: cam.fov,
      near: cam.near,
      far: cam.far,
      projection: nav.projection,
      mode: nav.mode,
      controls: nav.cameraConfig,
    };
  };
  const lookAt = (position: Vec3T | undefined, target: Vec3T | undefined, transition: boolean): Promise<void> => {
    const p = position ?? tuple(view.positionEnd);
    const t = target ?? tuple(view.targetEnd);
    if (p[0] === t[0] && p[1] === t[1] && p[2] === t[2]) throw new Error('position and target must differ: the camera needs a direction to look in.');
    world.render.needsRender = true;
    return viewer.navigation.setLookAt(p[0], p[1], p[2], t[0], t[1], t[2], transition);
  };
  const setFov = (fov: number) => {
    const cam = perspective();
    cam.fov = fov;
    cam.updateProjectionMatrix();
    world.render.needsRender = true;
  };
  const pictureSize = (width: number | undefined, height: number | undefined) => {
    const w = options.canvas.clientWidth || 1;
    const h = options.canvas.clientHeight || 1;
    if (width && height) return { width, height };
    if (width) return { width, height: Math.max(1, Math.round((width * h) / w)) };
    if (height) return { width: Math.max(1, Math.round((height * w) / h)), height };
    const ratio = viewer.context.renderer.getPixelRatio();
    return { width: Math.round(w * ratio), height: Math.round(h * ratio) };
  };

  const functions: CameraFunctions = {
    getCamera: () => cameraState(),
    setCamera: async ({ position, target, fov, transition }) => {
      // Checked before anything changes: a refused pose leaves the field of view too.
      if (position || target) {
        const moving = lookAt(position, target, transition ?? true);
        if (fov !== undefined) setFov(fov);
        await moving;
      } else if (fov !== undefined) setFov(fov);
      return cameraState();
    },
    fitCamera: async ({ transition }) => {
      await viewer.frame(transition ?? true);
      return cameraState();
    },
    setCameraConfig: ({ fov, near, far, controls: mapping }) => {
      const cam = perspective();
      const n = near ?? cam.near;
      const f = far ?? cam.far;
      if (n >= f) throw new Error(`near (${n}) must be less than far (${f}).`);
      if (fov !== undefined) cam.fov = fov;
      cam.near = n;
      cam.far = f;
      cam.updateProjectionMatrix();
      if (mapping) viewer.navigation.setCameraConfig(mapping);
      world.render.needsRender = true;
      return cameraState();
    },
    setNavigationMode: ({ mode }) => {
      viewer.navigation.setMode(mode);
      return cameraState();
    },
    setProjection: ({ projection }) => {
      viewer.navigation.setProjection(projection);
      return cameraState();
    },
    screenshot: ({ width, height, format, quality }) => {
      const s = pictureSize(width, height);
      return picture(viewer.screenshot({ width: s.width, height: s.height, format, quality }), s.width, s.height);
    },
    renderOffscreenFrame: (a) => renderOffscreen(ctx, a),
  };
  return { functions, cameraState, lookAt };
}

/**
 * Renders from another camera into a picture without moving the view: the camera is posed, the
 * picture drawn (synchronously, inside the screenshot call), the pose restored and the viewport
 * drawn again in the same task, so the page never shows the other view.
 */
function renderOffscreen(ctx: ApiContext, a: HostParsedArgs<'renderOffscreenFrame'>): Promise<Picture> {
  const { viewer, world } = ctx;
  const camera = world.render.camera as PerspectiveCamera | OrthographicCamera | null;
  const scene = viewer.context.scene;
  const renderer = viewer.context.renderer;
  if (!camera) throw new Error('The viewer has no camera yet.');
  const saved = {
    position: camera.position.clone(),
    quaternion: camera.quaternion.clone(),
    fov: (camera as PerspectiveCamera).fov,
    zoom: camera.zoom,
    background: scene.background,
    clearAlpha: renderer.getClearAlpha(),
  };
  const isPerspective = (camera as PerspectiveCamera).isPerspectiveCamera === true;
  // From the view as the picture shows it now (the view pose).
  const position = a.position ? new Vector3(...a.position) : world.view.position.clone();
  const target = a.target ? new Vector3(...a.target) : world.view.target.clone();
  if (position.distanceToSquared(target) === 0) throw new Error('position and target must differ: the camera needs a direction to look in.');
  // Nothing of the view changes before the draw (a refusal below leaves it as it was).
  const fov = isPerspective && a.fov !== undefined ? a.fov : saved.fov;
  let zoom = saved.zoom;
  if (a.fit) {
    const box = new Box3();
    for (const rec of world.models.values()) if (Visibility.visible[rec.eid] === 1) box.expandByObject(rec.root);
    if (box.isEmpty()) throw new Error('There is nothing to fit: no visible model.');
    const sphere = box.getBoundingSphere(new Sphere());
    const pad = a.fitPaddingFactor ?? FIT_PADDING_DEFAULT;
    const direction = position.clone().sub(target).normalize();
    const aspect = a.width / a.height;
    if (isPerspective) {
      const vfov = MathUtils.degToRad(fov);
      const hfov = 2 * Math.atan(Math.tan(vfov / 2) * aspect);
      const distance = (sphere.radius * pad) / Math.sin(Math.min(vfov, hfov) / 2);
      position.copy(sphere.center).addScaledVector(direction, distance);
    } else {
      const o = camera as OrthographicCamera;
      const half = (o.top - o.bottom) / 2;
      zoom = half / (sphere.radius * pad * Math.max(1, 1 / aspect));
      position.copy(sphere.center).addScaledVector(direction, sphere.radius * 4);
    }
    target.copy(sphere.center);
  }
  // Applied in the task that draws the picture (the screenshot's code may be fetched first).
  let placed = false;
  const place = () => {
    placed = true;
    // The view as it is now (it may have moved while the screenshot's code was fetched) comes back after.
    Object.assign(saved, {
      position: camera.position.clone(),
      quaternion: camera.quaternion.clone(),
      fov: (camera as PerspectiveCamera).fov,
      zoom: camera.zoom,
      background: scene.background,
      clearAlpha: renderer.getClearAlpha(),
    });
    if (isPerspective) (camera as PerspectiveCamera).fov = fov;
    camera.zoom = zoom;
    camera.position.copy(position);
    // Straight down (or up) the default up is parallel to the view: use -Z as up there.
    const dir = v1.copy(target).sub(position).normalize();
    const up = camera.up.clone();
    if (Math.abs(dir.dot(camera.up)) > 0.999) camera.up.set(0, 0, -1);
    camera.lookAt(target);
    camera.up.copy(up);
    camera.updateProjectionMatrix();
    camera.updateMatrixWorld();
    if (a.transparent) {
      scene.background = null;
      renderer.setClearAlpha(0);
    }
  };
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    camera.position.copy(saved.position);
    camera.quaternion.copy(saved.quaternion);
    if (isPerspective) (camera as PerspectiveCamera).fov = saved.fov;
    camera.zoom = saved.zoom;
    camera.updateProjectionMatrix();
    camera.updateMatrixWorld();
    scene.background = saved.background;
    renderer.setClearAlpha(saved.clearAlpha);
  };
  // The screenshot calls beforeDraw, draws the picture, calls beforeViewport and draws the viewport
  // again, all in one task: the page never shows the other view.
  const blob = viewer
    .screenshot({
      width: a.width,
      height: a.height,
      format: a.format ?? (a.transparent ? 'png' : undefined),
      quality: a.quality,
      beforeDraw: place,
      beforeViewport: restore,
    })
    .catch((error: unknown) => {
      if (placed && !restored) {
        // The screenshot failed after the camera was placed: put the view back and draw it.
        restore();
        world.render.needsRender = true;
      }
      throw error;
    });
  return picture(blob, a.width, a.height);
}
