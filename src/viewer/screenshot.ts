import { Vector2, Vector3, type Camera, type Object3D, type OrthographicCamera, type PerspectiveCamera } from 'three';
import { setLevelView } from '../engine/instance-levels';
import { SCREENSHOT_DEFAULT_FORMAT, SCREENSHOT_DEFAULT_QUALITY } from '../protocol/constants';
import { ERR_CAMERA, ERR_RENDERER, ERR_SCENE } from '../protocol/errors';
import { HELPER_LAYER } from '../engine/layers';
import { finishShadowReveal } from '../engine/shadow-reveal';
import type { ViewerWorld } from '../engine/world';

/**
 * Screenshots (viewer specification sections 2 and 9): PNG by default, JPEG and WebP at quality
 * 0.8 by default, at any resolution up to MAX_SCREENSHOT_PIXELS. Helpers (layer 15) are left out,
 * except annotations: measurements, their labels and the sampled point's pin are in the picture by
 * default (`annotations: false` leaves them out); section plane squares, gizmos and snap markers
 * never are. An annotation is a helper object whose `userData.annotation` is true; its labels are
 * the label layer's shown labels, drawn into the picture at the same size relative to the view.
 *
 * How: the renderer is resized to the picture (pixel ratio 1) and the frame is drawn with the
 * viewer's own pipeline (the post-processing stack when it is on), then copied from the WebGL
 * canvas in the same task, and the viewport is restored and drawn again before the browser shows
 * anything. A picture larger than one tile (the GPU's maximum renderbuffer, texture and viewport
 * size, and at most SCREENSHOT_MAX_TILE) is drawn in tiles with camera.setViewOffset and assembled
 * in a 2D canvas. Tiles are drawn without the post-processing stack: its screen-space effects
 * (vignette, bloom, ambient occlusion, SMAA) would show seams at tile borders. The renderer's own
 * tone mapping and colour space still apply.
 *
 * The download is 'high-res-screenshot.png'; JPEG and WebP pictures keep that name with their own
 * extension: 'high-res-screenshot.jpg', 'high-res-screenshot.webp'.
 */


// Names, formats and the download: ./screenshot-files.ts (light, for the toolbar; this module is
// a chunk fetched at the first screenshot).
export { downloadBlob, MAX_SCREENSHOT_PIXELS, mimeTypeOf, SCREENSHOT_FORMATS, screenshotFileName, type ScreenshotFormat } from './screenshot-files';
import { MAX_SCREENSHOT_PIXELS, mimeTypeOf, SCREENSHOT_FORMATS, type ScreenshotFormat } from './screenshot-files';

export interface ScreenshotOptions {
  /** Multiplies the canvas's drawing-buffer size (default 1); ignored when width or height is given. */
  scale?: number;
  /** Picture width in pixels; with only one of width and height the other keeps the canvas's aspect. */
  width?: number;
  height?: number;
  /** 'png' (default), 'jpeg' or 'webp'. */
  format?: ScreenshotFormat;
  /** Lossy quality 0..1 for jpeg and webp (default 0.8). */
  quality?: number;
  /** Largest tile side (default: the GPU's limits, at most SCREENSHOT_MAX_TILE); mainly for tests. */
  maxTileSize?: number;
  /**
   * Called after the picture was drawn and before the viewport is drawn again: the host API's
   * renderOffscreenFrame puts its camera back here, so the page never shows the other view and the
   * viewport is drawn once.
   */
  beforeViewport?: () => void;
  /**
   * Called in the task that draws the picture, just before it (this module is fetched at the first
   * screenshot, so the draw may come a task later than the call): renderOffscreenFrame places its
   * camera here.
   */
  beforeDraw?: () => void;
  /** Measurements, their labels and pins (default true); section planes and gizmos are never drawn. */
  annotations?: boolean;
}

/** A label pinned to a world point, as screenshots draw it (src/viewer/tools/labels.ts gives them). */
export interface ScreenshotLabel {
  readonly element: HTMLElement;
  readonly point: Vector3;
  readonly offsetY: number;
  readonly inScreenshot: boolean;
}

/** The largest tile drawn at once (the post-processing buffers of a bigger one cost too much memory). */
export const SCREENSHOT_MAX_TILE = 4096;
/** The largest scale accepted. */
export const MAX_SCREENSHOT_SCALE = 8;

export interface Tile {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ScreenshotPlan {
  width: number;
  height: number;
  format: ScreenshotFormat;
  mimeType: string;
  /** Quality for lossy formats; undefined for PNG. */
  quality: number | undefined;
  tiles: Tile[];
}



function positiveInteger(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1 || Math.round(value) !== value) {
    throw new Error(`Screenshot ${name} must be a whole number of pixels of at least 1, got ${String(value)}.`);
  }
  return value;
}

/**
 * Cuts a picture into tiles of at most `maxTile` pixels a side, row by row from the top left.
 * Tiles are as even as possible (no sliver at the end).
 */
export function tileLayout(width: number, height: number, maxTile: number): Tile[] {
  positiveInteger(width, 'width');
  positiveInteger(height, 'height');
  const max = Math.floor(maxTile);
  if (!(max >= 1)) throw new Error(`The tile size must be at least 1 pixel, got ${maxTile}.`);
  const columns = Math.ceil(width / max);
  const rows = Math.ceil(height / max);
  const tiles: Tile[] = [];
  for (let r = 0; r < rows; r++) {
    const y0 = Math.round((r * height) / rows);
    const y1 = Math.round(((r + 1) * height) / rows);
    for (let c = 0; c < columns; c++) {
      const x0 = Math.round((c * width) / columns);
      const x1 = Math.round(((c + 1) * width) / columns);
      tiles.push({ x: x0, y: y0, width: x1 - x0, height: y1 - y0 });
    }
  }
  return tiles;
}

/**
 * Checks the options and works out the picture: its size from scale or width/height and the
 * canvas's drawing-buffer size, the format and quality, and the tiles for a GPU whose largest
 * drawable is `maxSize` pixels a side.
 */
export function planScreenshot(canvasWidth: number, canvasHeight: number, options: ScreenshotOptions, maxSize: number): ScreenshotPlan {
  positiveInteger(canvasWidth, 'canvas width');
  positiveInteger(canvasHeight, 'canvas height');
  const format = options.format ?? SCREENSHOT_DEFAULT_FORMAT;
  if (!SCREENSHOT_FORMATS.includes(format)) throw new Error(`Unknown screenshot format ${JSON.stringify(format)}: expected 'png', 'jpeg' or 'webp'.`);
  let quality: number | undefined;
  if (format !== 'png') {
    quality = options.quality ?? SCREENSHOT_DEFAULT_QUALITY;
    if (typeof quality !== 'number' || !(quality >= 0 && quality <= 1)) throw new Error(`Screenshot quality must be between 0 and 1, got ${String(options.quality)}.`);
  }
  let width: number;
  let height: number;
  if (options.width !== undefined || options.height !== undefined) {
    const aspect = canvasWidth / canvasHeight;
    width = options.width !== undefined ? positiveInteger(options.width, 'width') : Math.max(1, Math.round(positiveInteger(options.height, 'height') * aspect));
    height = options.height !== undefined ? positiveInteger(options.height, 'height') : Math.max(1, Math.round(width / aspect));
  } else {
    const scale = options.scale ?? 1;
    if (typeof scale !== 'number' || !(scale > 0 && scale <= MAX_SCREENSHOT_SCALE)) {
      throw new Error(`Screenshot scale must be more than 0 and at most ${MAX_SCREENSHOT_SCALE}, got ${String(options.scale)}.`);
    }
    width = Math.max(1, Math.round(canvasWidth * scale));
    height = Math.max(1, Math.round(canvasHeight * scale));
  }
  if (width * height > MAX_SCREENSHOT_PIXELS) {
    throw new Error(`A screenshot of ${width} x ${height} pixels is larger than the ${MAX_SCREENSHOT_PIXELS} pixels allowed.`);
  }
  const tileMax = Math.min(maxSize, options.maxTileSize ?? Infinity);
  return { width, height, format, mimeType: mimeTypeOf(format), quality, tiles: tileLayout(width, height, tileMax) };
}

export interface ScreenshotTarget {
  world: ViewerWorld;
  /** Resizes the post-processing buffers to a drawing size (pixel ratio 1); absent without post-processing. */
  setPassSize?: (width: number, height: number) => void;
  /** Puts renderer, passes and cameras back to the viewport (after the pixel ratio was restored). */
  restoreViewport: () => void;
  /** The labels to draw over the picture (annotations); none when absent. */
  labels?: () => Iterable<ScreenshotLabel>;
}

const drawingSize = new Vector2();

/** The GPU's largest drawable square side: renderbuffer, texture and viewport limits, at most SCREENSHOT_MAX_TILE. */
export function maxDrawableSize(gl: WebGL2RenderingContext | WebGLRenderingContext): number {
  const dims = gl.getParameter(gl.MAX_VIEWPORT_DIMS) as Int32Array | null;
  return Math.min(
    SCREENSHOT_MAX_TILE,
    gl.getParameter(gl.MAX_RENDERBUFFER_SIZE) as number,
    gl.getParameter(gl.MAX_TEXTURE_SIZE) as number,
    dims ? Math.min(dims[0], dims[1]) : Infinity,
  );
}

/** Renders a screenshot of the current view and encodes it. */
export async function takeScreenshot(target: ScreenshotTarget, options: ScreenshotOptions = {}): Promise<Blob> {
  const { world } = target;
  const { renderer, scene } = world.render;
  const camera = world.render.camera as PerspectiveCamera | OrthographicCamera | null;
  if (!renderer) throw new Error(ERR_RENDERER);
  if (!scene) throw new Error(ERR_SCENE);
  if (!camera) throw new Error(ERR_CAMERA);
  renderer.getDrawingBufferSize(drawingSize);
  const plan = planScreenshot(Math.max(1, drawingSize.x), Math.max(1, drawingSize.y), options, maxDrawableSize(renderer.getContext()));

  const output = document.createElement('canvas');
  output.width = plan.width;
  output.height = plan.height;
  const ctx = output.getContext('2d');
  if (!ctx) throw new Error('The browser could not create a canvas for the screenshot.');

  const tiled = plan.tiles.length > 1;
  const draw = tiled ? null : world.render.draw;
  const pixelRatio = renderer.getPixelRatio();
  const annotations = options.annotations ?? true;
  if (typeof annotations !== 'boolean') throw new Error(`Screenshot annotations must be true or false, got ${String(options.annotations)}.`);
  // A picture taken while the scene's shadows are still on their way in has them all.
  finishShadowReveal(world);
  // Nothing below throws before the try: what beforeDraw changes, beforeViewport puts back.
  options.beforeDraw?.();
  const saved = saveCamera(camera);
  const hidden = hideHelpers(scene, annotations);
  const mask = camera.layers.mask;
  const autoClear = renderer.autoClear;
  try {
    renderer.setPixelRatio(1);
    // Instance levels for the picture's own height (the next frame sets the viewport's again).
    camera.updateMatrixWorld();
    setLevelView(camera, plan.height);
    const aspect = plan.width / plan.height;
    let drawnWidth = -1;
    let drawnHeight = -1;
    for (const tile of plan.tiles) {
      if (tile.width !== drawnWidth || tile.height !== drawnHeight) {
        renderer.setSize(tile.width, tile.height, false);
        if (draw) target.setPassSize?.(tile.width, tile.height);
        drawnWidth = tile.width;
        drawnHeight = tile.height;
      }
      setCameraFrame(camera, saved, aspect, plan, tile);
      if (draw) {
        draw(0);
      } else {
        if (!annotations) camera.layers.disable(HELPER_LAYER);
        renderer.autoClear = true;
        renderer.setRenderTarget(null);
        renderer.render(scene, camera);
        camera.layers.mask = mask;
        renderer.autoClear = autoClear;
      }
      // Same task as the draw: the drawing buffer is still there without preserveDrawingBuffer.
      ctx.drawImage(renderer.domElement, 0, 0, tile.width, tile.height, tile.x, tile.y, tile.width, tile.height);
    }
    if (annotations && target.labels) {
      // The whole picture's projection (no tile offset) places the labels.
      camera.clearViewOffset();
      camera.updateProjectionMatrix();
      camera.updateMatrixWorld();
      drawLabels(ctx, camera, plan.width, plan.height, renderer.domElement.clientWidth || plan.width, target.labels());
    }
  } finally {
    camera.layers.mask = mask;
    renderer.autoClear = autoClear;
    for (const o of hidden) o.visible = true;
    restoreCamera(camera, saved);
    options.beforeViewport?.();
    renderer.setPixelRatio(pixelRatio);
    target.restoreViewport();
    // Draw the viewport again now, so the browser never shows the cleared, resized canvas.
    world.render.needsRender = false;
    if (world.render.draw) world.render.draw(0);
    else renderer.render(scene, camera);
    world.render.needsRender = true;
  }
  return encode(output, plan);
}

function encode(canvas: HTMLCanvasElement, plan: ScreenshotPlan): Promise<Blob> {
  return new Promise((resolve, reject) => {
    canvas.toBlob(
      (blob) => {
        if (!blob) reject(new Error(`The browser could not encode the ${plan.width} x ${plan.height} screenshot.`));
        else if (blob.type !== plan.mimeType) reject(new Error(`This browser cannot write ${plan.format.toUpperCase()} pictures; choose PNG or JPEG.`));
        else resolve(blob);
      },
      plan.mimeType,
      plan.quality,
    );
  });
}

interface SavedCamera {
  aspect: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

function saveCamera(camera: PerspectiveCamera | OrthographicCamera): SavedCamera {
  if ((camera as PerspectiveCamera).isPerspectiveCamera) {
    return { aspect: (camera as PerspectiveCamera).aspect, left: 0, right: 0, top: 0, bottom: 0 };
  }
  const o = camera as OrthographicCamera;
  return { aspect: 0, left: o.left, right: o.right, top: o.top, bottom: o.bottom };
}

/** The whole picture's aspect, and a view offset for a tile (cleared for a single tile). */
function setCameraFrame(camera: PerspectiveCamera | OrthographicCamera, saved: SavedCamera, aspect: number, plan: ScreenshotPlan, tile: Tile): void {
  if ((camera as PerspectiveCamera).isPerspectiveCamera) {
    (camera as PerspectiveCamera).aspect = aspect;
  } else {
    const o = camera as OrthographicCamera;
    const half = (saved.top - saved.bottom) / 2;
    const mid = (saved.left + saved.right) / 2;
    o.left = mid - half * aspect;
    o.right = mid + half * aspect;
  }
  if (plan.tiles.length > 1) camera.setViewOffset(plan.width, plan.height, tile.x, tile.y, tile.width, tile.height);
  else camera.clearViewOffset();
  camera.updateProjectionMatrix();
}

function restoreCamera(camera: PerspectiveCamera | OrthographicCamera, saved: SavedCamera): void {
  if ((camera as PerspectiveCamera).isPerspectiveCamera) {
    (camera as PerspectiveCamera).aspect = saved.aspect;
  } else {
    const o = camera as OrthographicCamera;
    o.left = saved.left;
    o.right = saved.right;
    o.top = saved.top;
    o.bottom = saved.bottom;
  }
  camera.clearViewOffset();
  camera.updateProjectionMatrix();
}

/**
 * Hides every visible object on the helper layer (the post-processing overlay draws them otherwise),
 * except annotations (userData.annotation) and what is inside them when `keepAnnotations`.
 */
function hideHelpers(scene: Object3D, keepAnnotations: boolean): Object3D[] {
  const hidden: Object3D[] = [];
  const helperMask = 1 << HELPER_LAYER;
  const visit = (o: Object3D) => {
    if (!o.visible) return;
    if (keepAnnotations && o.userData.annotation === true) return;
    if ((o.layers.mask & helperMask) !== 0) hidden.push(o);
    for (const child of o.children) visit(child);
  };
  visit(scene);
  for (const o of hidden) o.visible = false;
  return hidden;
}

const labelPoint = new Vector3();
const labelToPoint = new Vector3();
const labelDirection = new Vector3();

/** Where a label's centre falls in a picture of width x height, or null when it is not in view (as labels.ts hides it). */
export function labelPosition(camera: Camera, point: Vector3, width: number, height: number, offsetY: number): { x: number; y: number } | null {
  camera.getWorldDirection(labelDirection);
  labelToPoint.copy(point).sub(camera.position);
  labelPoint.copy(point).project(camera);
  const ortho = (camera as Camera & { isOrthographicCamera?: boolean }).isOrthographicCamera === true;
  if ((!ortho && labelToPoint.dot(labelDirection) <= 0) || labelPoint.z > 1 || Math.abs(labelPoint.x) > 1.05 || Math.abs(labelPoint.y) > 1.05) return null;
  return { x: ((labelPoint.x + 1) / 2) * width, y: ((1 - labelPoint.y) / 2) * height + offsetY };
}

/**
 * Draws the shown labels as the page shows them (their computed font, colours, border, padding and
 * radius), scaled from CSS pixels of the view to the picture: a label is as big relative to the
 * picture as it is on screen.
 */
function drawLabels(ctx: CanvasRenderingContext2D, camera: Camera, width: number, height: number, cssWidth: number, labels: Iterable<ScreenshotLabel>): void {
  const scale = width / cssWidth;
  for (const label of labels) {
    if (!label.inScreenshot || !label.element.isConnected) continue;
    const style = getComputedStyle(label.element);
    if (style.display === 'none' || !label.element.textContent) continue;
    const at = labelPosition(camera, label.point, width, height, label.offsetY * scale);
    if (!at) continue;
    const text = label.element.textContent;
    const px = (name: string) => (Number.parseFloat(style.getPropertyValue(name)) || 0) * scale;
    ctx.save();
    ctx.font = `${style.fontWeight} ${px('font-size')}px ${style.fontFamily}`;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'center';
    const textWidth = ctx.measureText(text).width;
    const border = px('border-top-width');
    const w = textWidth + px('padding-left') + px('padding-right') + 2 * border;
    const h = px('font-size') * 1.3 + px('padding-top') + px('padding-bottom') + 2 * border;
    const x = at.x - w / 2;
    const y = at.y - h / 2;
    ctx.globalAlpha = Number.parseFloat(style.opacity) || 1;
    ctx.beginPath();
    ctx.roundRect(x + border / 2, y + border / 2, w - border, h - border, px('border-top-left-radius'));
    ctx.fillStyle = style.backgroundColor;
    ctx.fill();
    if (border > 0) {
      ctx.lineWidth = border;
      ctx.strokeStyle = style.borderTopColor;
      ctx.stroke();
    }
    ctx.fillStyle = style.color;
    ctx.fillText(text, at.x, at.y);
    ctx.restore();
  }
}

