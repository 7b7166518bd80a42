import {
  BufferAttribute,
  BufferGeometry,
  Box3,
  Color,
  DoubleSide,
  InstancedMesh,
  LinearFilter,
  Matrix4,
  Mesh,
  MeshBasicMaterial,
  NoBlending,
  NormalBlending,
  OrthographicCamera,
  PointsMaterial,
  RedFormat,
  Scene,
  ShaderMaterial,
  Uniform,
  UnsignedByteType,
  Vector2,
  Vector4,
  WebGLRenderTarget,
  type Camera,
  type Line,
  type Material,
  type Object3D,
  type Points,
  type Texture,
  type WebGLRenderer,
} from 'three';
import { Transform } from '../../components';
import { addFrameStep } from '../engine/frame-steps';
import { instanceGroupByUuid, instanceSlot, getInstanceBounds, type InstanceGroupRecord } from '../engine/instances';
import type { ViewerWorld } from '../engine/world';

/**
 * The editor's selection outline: a line along the silhouette of what is selected (a model node
 * with everything under it, the helpers of a light, camera or group, an instanced asset group, or
 * some instances of one), drawn the same way on every quality tier, with post-processing on or off.
 *
 * It is a step of the frame's 'afterDraw' slot, so it is drawn right over each picture the render
 * system draws (after the post-processing stack and the helpers, where there are any), and never
 * in screenshots. Per picture, inside the selection's screen rectangle only (a scissor: its
 * projected bounds plus the line's width):
 *  1. the mask: the selected objects drawn flat white into a one-channel buffer of the drawing
 *     buffer's size, without depth test (the whole silhouette, also where something stands in
 *     front of it: the selection is found even inside an assembly);
 *  2. the line: one full-screen triangle that, for each pixel outside the mask, looks at 16 points
 *     around it (two rings of 8) and draws the outline's colour as strongly as the mask is near.
 *
 * Chosen over postprocessing's OutlineEffect, which exists only where the stack does (the low tier
 * draws no post-processing) and costs its full-screen passes whatever the selection's size; this
 * outline's cost follows the selection's area on screen (`npm run bench -- selection-outline`).
 *
 * The selection's bounds are kept in each root's own space, so a drag (which moves the root and
 * its subtree rigidly) only carries the box along: the subtree is walked again only when something
 * else moved. Instances are drawn by one InstancedMesh per asset part holding only the selected
 * instances (never an object per instance).
 */
export interface SelectionOutline {
  /** Outlines these objects and everything under them; [] clears. */
  showObjects(objects: readonly Object3D[]): void;
  /** Outlines instances of an instanced asset group, by stable id; [] clears. */
  showInstances(groupId: string, ids: readonly number[]): void;
  clear(): void;
  /** Whether something is outlined. */
  readonly active: boolean;
  /**
   * The bounds and the screen rectangle for this camera and drawing-buffer size (what the frame
   * step does before drawing): [x, y, width, height] in drawing-buffer pixels from the bottom
   * left, or null when nothing is outlined on screen.
   */
  prepare(camera: Camera, width: number, height: number): readonly [number, number, number, number] | null;
  /** The selection's world box as prepare last computed it (tests). */
  readonly bounds: Box3;
  dispose(): void;
}

export interface SelectionOutlineOptions {
  /** The line's colour (sRGB); default OUTLINE_COLOR. */
  color?: number;
  /** The line's width in CSS pixels (times the pixel ratio on screen); default OUTLINE_WIDTH_PX. */
  width?: number;
}

/** The editor's selection blue. */
export const OUTLINE_COLOR = 0x1f8efa;
/** Outline width in CSS pixels. */
export const OUTLINE_WIDTH_PX = 2;

type Drawable = Mesh | Line | Points;

const corner = new Vector4();
const scratchBox = new Box3();
const viewProjection = new Matrix4();
const inverse = new Matrix4();
const relative = new Matrix4();
const savedScissor = new Vector4();
const savedClear = new Color();
const bufferSize = new Vector2();

/** Grows `out` by `box` carried by `matrix` (its 8 corners). */
function unionTransformed(out: Box3, box: Box3, matrix: Matrix4): void {
  if (box.isEmpty()) return;
  scratchBox.copy(box).applyMatrix4(matrix);
  out.union(scratchBox);
}

/** The box of an object's own drawing (not its children) in its local space, or null. */
function ownBox(object: Object3D): Box3 | null {
  const mesh = object as InstancedMesh;
  if (mesh.isInstancedMesh) {
    if (mesh.boundingBox === null) mesh.computeBoundingBox();
    return mesh.boundingBox;
  }
  const geometry = (object as Mesh).geometry as BufferGeometry | undefined;
  if (!geometry || !(geometry as BufferGeometry).isBufferGeometry || !geometry.getAttribute('position')) return null;
  if (geometry.boundingBox === null) geometry.computeBoundingBox();
  return geometry.boundingBox;
}

/** The box refreshLocal grows (module state: traverse's callback allocates nothing). */
let growing = new Box3();

function addOwnBox(object: Object3D): void {
  const own = ownBox(object);
  if (!own) return;
  relative.multiplyMatrices(inverse, object.matrixWorld);
  unionTransformed(growing, own, relative);
}

/** Whether the object and all its ancestors are visible (a hidden parent hides it). */
function shown(object: Object3D): boolean {
  for (let o: Object3D | null = object; o; o = o.parent) if (!o.visible) return false;
  return true;
}

export function createSelectionOutline(world: ViewerWorld, options: SelectionOutlineOptions = {}): SelectionOutline {
  const widthCss = options.width ?? OUTLINE_WIDTH_PX;

  // ---- what is outlined ----
  let roots: Object3D[] = [];
  /** Each root's subtree box in the root's own space. */
  let localBoxes: Box3[] = [];
  /** The entity of each root (0 for helpers, which are not entities). */
  let rootEids: number[] = [];
  let drawables: Drawable[] = [];
  let savedMaterials: (Material | Material[])[] = [];
  let localDue = true;
  let seenEpoch = -1;
  /** A root is a helper (not an entity): its bounds are read at every picture. */
  let helperRoot = false;
  /** The drawing buffer's pixels per CSS pixel at the last draw. */
  let pixelRatio = 1;

  let groupId: string | null = null;
  let ids: number[] = [];
  let group: InstanceGroupRecord | null = null;
  let seenVersion = -1;
  let seenGroupEpoch = -1;
  const proxies: InstancedMesh[] = [];
  let proxyCapacity = 0;
  const proxyScene = new Scene();
  proxyScene.matrixWorldAutoUpdate = false;

  const bounds = new Box3();
  const rect: [number, number, number, number] = [0, 0, 0, 0];

  // ---- GPU resources, made on the first draw ----
  const maskMaterial = new MeshBasicMaterial({ color: 0xffffff, side: DoubleSide, depthTest: false, depthWrite: false, toneMapped: false, fog: false, blending: NoBlending });
  const pointsMaterial = new PointsMaterial({ color: 0xffffff, size: 3, sizeAttenuation: false, depthTest: false, depthWrite: false, toneMapped: false, fog: false, blending: NoBlending });
  let mask: WebGLRenderTarget | null = null;
  const quadGeometry = new BufferGeometry();
  quadGeometry.setAttribute('position', new BufferAttribute(new Float32Array([-1, -1, 0, 3, -1, 0, -1, 3, 0]), 3));
  const lineMaterial = new ShaderMaterial({
    name: 'SelectionOutline.Line',
    uniforms: {
      mask: new Uniform<Texture | null>(null),
      texel: new Uniform(new Vector2()),
      radius: new Uniform(widthCss),
      color: new Uniform(new Color(options.color ?? OUTLINE_COLOR)),
    },
    vertexShader: /* glsl */ `
      void main() {
        gl_Position = vec4(position.xy, 0.0, 1.0);
      }`,
    fragmentShader: /* glsl */ `
      uniform sampler2D mask;
      uniform vec2 texel;
      uniform float radius;
      uniform vec3 color;
      float near(vec2 uv, vec2 step) {
        float m = texture2D(mask, uv + vec2(step.x, 0.0)).r;
        m = max(m, texture2D(mask, uv - vec2(step.x, 0.0)).r);
        m = max(m, texture2D(mask, uv + vec2(0.0, step.y)).r);
        m = max(m, texture2D(mask, uv - vec2(0.0, step.y)).r);
        vec2 d = step * 0.7071;
        m = max(m, texture2D(mask, uv + d).r);
        m = max(m, texture2D(mask, uv - d).r);
        m = max(m, texture2D(mask, uv + vec2(d.x, -d.y)).r);
        m = max(m, texture2D(mask, uv + vec2(-d.x, d.y)).r);
        return m;
      }
      void main() {
        vec2 uv = gl_FragCoord.xy * texel;
        float inside = texture2D(mask, uv).r;
        if (inside > 0.99) discard;
        float m = max(near(uv, texel * radius), near(uv, texel * radius * 0.5));
        float alpha = m * (1.0 - inside);
        if (alpha < 0.004) discard;
        gl_FragColor = vec4(color, alpha);
      }`,
    transparent: true,
    blending: NormalBlending,
    depthTest: false,
    depthWrite: false,
    toneMapped: false,
  });
  // Its colour is written as it is (sRGB): no output conversion.
  lineMaterial.uniforms.color.value.setHex(options.color ?? OUTLINE_COLOR, 'srgb-linear');
  const quad = new Mesh(quadGeometry, lineMaterial);
  quad.frustumCulled = false;
  const quadCamera = new OrthographicCamera(-1, 1, 1, -1, 0, 1);

  const collect = () => {
    drawables = [];
    for (const root of roots) {
      root.traverse((o) => {
        if ((o as Mesh).isMesh || (o as Line).isLine || (o as Points).isPoints) drawables.push(o as Drawable);
      });
    }
    savedMaterials = new Array(drawables.length);
  };

  const clearInstances = () => {
    groupId = null;
    ids = [];
    group = null;
    for (const proxy of proxies) proxy.visible = false;
  };

  /** Proxies for the group's parts, with room for `n` instances. */
  const fitProxies = (target: InstanceGroupRecord, n: number) => {
    const parts = target.asset.parts;
    const grow = n > proxyCapacity;
    if (grow) proxyCapacity = Math.max(n, proxyCapacity * 2, 16);
    for (let i = 0; i < Math.max(parts.length, proxies.length); i++) {
      const part = parts[i];
      let proxy = proxies[i];
      if (!part) {
        if (proxy) proxy.visible = false;
        continue;
      }
      if (!proxy || grow) {
        if (proxy) {
          proxy.removeFromParent();
          proxy.dispose();
        }
        proxy = new InstancedMesh(part.geometry, maskMaterial, proxyCapacity);
        proxy.matrixAutoUpdate = false;
        proxy.matrixWorldAutoUpdate = false;
        proxy.frustumCulled = false;
        proxy.name = 'Selection outline (instances)';
        proxies[i] = proxy;
        proxyScene.add(proxy);
      }
      proxy.geometry = part.geometry;
      proxy.count = n;
      proxy.visible = true;
    }
  };

  /** Copies the selected instances' matrices into the proxies and their bounds into `bounds`. */
  const refreshInstances = (target: InstanceGroupRecord) => {
    bounds.makeEmpty();
    const source = target.attribute.array as Float32Array;
    let k = 0;
    const parts = target.asset.parts.length;
    for (let n = 0; n < ids.length; n++) {
      const id = ids[n]!;
      const slot = instanceSlot(target, id);
      if (slot < 0) continue;
      for (let p = 0; p < parts; p++) {
        const array = proxies[p]!.instanceMatrix.array as Float32Array;
        for (let e = 0; e < 16; e++) array[k * 16 + e] = source[slot * 16 + e]!;
      }
      if (ids.length <= MAX_BOXED_INSTANCES) bounds.union(getInstanceBounds(target, id, scratchBox));
      k++;
    }
    if (ids.length > MAX_BOXED_INSTANCES) bounds.copy(target.localBox).applyMatrix4(target.object.matrixWorld);
    for (let p = 0; p < parts; p++) {
      const proxy = proxies[p]!;
      proxy.count = k;
      proxy.instanceMatrix.needsUpdate = true;
      proxy.matrixWorld.copy(target.object.matrixWorld);
    }
  };

  /** The roots' subtree boxes in their own spaces. */
  const refreshLocal = () => {
    for (let r = 0; r < roots.length; r++) {
      const root = roots[r]!;
      growing = localBoxes[r]!.makeEmpty();
      inverse.copy(root.matrixWorld).invert();
      root.traverse(addOwnBox);
    }
  };

  const prepare: SelectionOutline['prepare'] = (camera, width, height) => {
    if (groupId !== null) {
      const now = instanceGroupByUuid(world, groupId);
      if (!now || !shown(now.object)) {
        if (!now) clearInstances();
        return null;
      }
      if (now !== group) {
        group = now;
        seenVersion = -1;
        fitProxies(now, ids.length);
      }
      const epoch = world.transform.epoch;
      if (now.attribute.version !== seenVersion || epoch !== seenGroupEpoch) {
        seenVersion = now.attribute.version;
        seenGroupEpoch = epoch;
        refreshInstances(now);
      }
    } else if (roots.length > 0) {
      const epoch = world.transform.epoch;
      if (epoch !== seenEpoch) {
        // A drag moves one root and its subtree rigidly: its own-space box still holds.
        const onlyRootMoved = epoch === seenEpoch + 1 && roots.length === 1 && rootEids[0]! > 0 && Transform.worldChanged[rootEids[0]!] === 1;
        if (!onlyRootMoved) localDue = true;
        seenEpoch = epoch;
      }
      // Helpers are not entities: their geometry and place follow their objects in the helpers step.
      if (localDue || helperRoot) {
        localDue = false;
        refreshLocal();
      }
      bounds.makeEmpty();
      let any = false;
      for (let r = 0; r < roots.length; r++) {
        if (!shown(roots[r]!)) continue;
        any = true;
        unionTransformed(bounds, localBoxes[r]!, roots[r]!.matrixWorld);
      }
      if (!any) return null;
    } else {
      return null;
    }
    if (bounds.isEmpty() || width <= 0 || height <= 0) return null;

    // The box's corners on screen; one behind the camera: the whole screen.
    viewProjection.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    let behind = false;
    for (let i = 0; i < 8; i++) {
      corner.set(i & 1 ? bounds.max.x : bounds.min.x, i & 2 ? bounds.max.y : bounds.min.y, i & 4 ? bounds.max.z : bounds.min.z, 1).applyMatrix4(viewProjection);
      if (corner.w <= 1e-6) {
        behind = true;
        break;
      }
      const x = corner.x / corner.w;
      const y = corner.y / corner.w;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
    const margin = Math.ceil(widthCss * pixelRatio) + 2;
    let px0 = 0;
    let py0 = 0;
    let px1 = width;
    let py1 = height;
    if (!behind) {
      px0 = Math.max(0, Math.floor(((x0 + 1) / 2) * width) - margin);
      py0 = Math.max(0, Math.floor(((y0 + 1) / 2) * height) - margin);
      px1 = Math.min(width, Math.ceil(((x1 + 1) / 2) * width) + margin);
      py1 = Math.min(height, Math.ceil(((y1 + 1) / 2) * height) + margin);
    }
    if (px1 <= px0 || py1 <= py0) return null;
    rect[0] = px0;
    rect[1] = py0;
    rect[2] = px1 - px0;
    rect[3] = py1 - py0;
    return rect;
  };

  const draw = (renderer: WebGLRenderer, camera: Camera) => {
    pixelRatio = renderer.getPixelRatio();
    renderer.getDrawingBufferSize(bufferSize);
    const width = bufferSize.x;
    const height = bufferSize.y;
    const area = prepare(camera, width, height);
    if (!area) return;
    const x = area[0];
    const y = area[1];
    const w = area[2];
    const h = area[3];
    if (!mask) {
      mask = new WebGLRenderTarget(width, height, { format: RedFormat, type: UnsignedByteType, depthBuffer: false, stencilBuffer: false, magFilter: LinearFilter, minFilter: LinearFilter, generateMipmaps: false });
      mask.texture.name = 'Selection outline mask';
    } else if (mask.width !== width || mask.height !== height) {
      mask.setSize(width, height);
    }
    // The mask is cleared and drawn a line's width beyond the rectangle the line pass reads.
    const margin = Math.ceil(widthCss * pixelRatio) + 2;
    mask.scissor.set(Math.max(0, x - margin), Math.max(0, y - margin), Math.min(width, x + w + margin) - Math.max(0, x - margin), Math.min(height, y + h + margin) - Math.max(0, y - margin));
    mask.scissorTest = true;

    const previousTarget = renderer.getRenderTarget();
    const autoClear = renderer.autoClear;
    renderer.getClearColor(savedClear);
    const clearAlpha = renderer.getClearAlpha();
    renderer.getScissor(savedScissor);
    const scissorTest = renderer.getScissorTest();
    const shadowMap = renderer.shadowMap;
    const shadowAutoUpdate = shadowMap.autoUpdate;
    const shadowNeedsUpdate = shadowMap.needsUpdate;
    const n = drawables.length;
    try {
      renderer.autoClear = false;
      shadowMap.autoUpdate = false;
      shadowMap.needsUpdate = false;
      renderer.setRenderTarget(mask);
      renderer.setClearColor(0x000000, 0);
      renderer.clear(true, false, false);
      if (groupId !== null) {
        renderer.render(proxyScene, camera);
      } else {
        for (let i = 0; i < n; i++) {
          const d = drawables[i]!;
          savedMaterials[i] = d.material;
          d.material = (d as Points).isPoints ? pointsMaterial : maskMaterial;
        }
        try {
          for (let r = 0; r < roots.length; r++) if (shown(roots[r]!)) renderer.render(roots[r]!, camera);
        } finally {
          for (let i = 0; i < n; i++) drawables[i]!.material = savedMaterials[i]!;
        }
      }
      renderer.setRenderTarget(null);
      lineMaterial.uniforms.mask.value = mask.texture;
      lineMaterial.uniforms.texel.value.set(1 / width, 1 / height);
      lineMaterial.uniforms.radius.value = widthCss * pixelRatio;
      renderer.setScissorTest(true);
      renderer.setScissor(x / pixelRatio, y / pixelRatio, w / pixelRatio, h / pixelRatio);
      renderer.render(quad, quadCamera);
    } finally {
      renderer.setRenderTarget(previousTarget);
      renderer.setScissor(savedScissor);
      renderer.setScissorTest(scissorTest);
      renderer.setClearColor(savedClear, clearAlpha);
      renderer.autoClear = autoClear;
      shadowMap.autoUpdate = shadowAutoUpdate;
      shadowMap.needsUpdate = shadowNeedsUpdate;
    }
  };

  const removeStep = addFrameStep(world, 'afterDraw', {
    name: 'selection outline',
    run(w) {
      const { renderer, camera } = w.render;
      if (!renderer || !camera || (roots.length === 0 && groupId === null)) return;
      draw(renderer, camera);
    },
  });

  const api: SelectionOutline = {
    showObjects(objects) {
      clearInstances();
      roots = [...objects];
      rootEids = roots.map((o) => (typeof o.userData.eid === 'number' ? (o.userData.eid as number) : 0));
      helperRoot = rootEids.some((eid) => eid === 0);
      localBoxes = roots.map(() => new Box3());
      localDue = true;
      collect();
      // The outline is drawn over the picture and casts no shadow: the shadow maps are kept.
      world.render.needsPicture = true;
    },
    showInstances(nextGroup, nextIds) {
      roots = [];
      rootEids = [];
      localBoxes = [];
      helperRoot = false;
      collect();
      const target = instanceGroupByUuid(world, nextGroup);
      if (!target || nextIds.length === 0) {
        clearInstances();
        world.render.needsPicture = true;
        return;
      }
      groupId = nextGroup;
      ids = [...nextIds];
      group = target;
      seenVersion = -1;
      fitProxies(target, ids.length);
      world.render.needsPicture = true;
    },
    clear() {
      api.showObjects([]);
    },
    get active() {
      return roots.length > 0 || groupId !== null;
    },
    prepare(camera, width, height) {
      return prepare(camera, width, height);
    },
    get bounds() {
      return bounds;
    },
    dispose() {
      removeStep();
      for (const proxy of proxies) {
        proxy.removeFromParent();
        proxy.dispose();
      }
      proxies.length = 0;
      mask?.dispose();
      maskMaterial.dispose();
      pointsMaterial.dispose();
      lineMaterial.dispose();
      quadGeometry.dispose();
      roots = [];
      drawables = [];
    },
  };
  return api;
}

/** Instance selections up to this many are bounded instance by instance; larger ones by their group's box. */
export const MAX_BOXED_INSTANCES = 1024;
