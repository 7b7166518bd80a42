import {
  BufferAttribute,
  BufferGeometry,
  CanvasTexture,
  GreaterDepth,
  LessEqualDepth,
  Matrix4,
  Points,
  ShaderMaterial,
  Sphere,
  Vector3,
  type Camera,
  type Object3D,
  type Texture,
} from 'three';
import { addFrameStep } from '../../engine/frame-steps';
import { HELPER_LAYER } from '../../engine/layers';
import type { ViewerWorld } from '../../engine/world';
import { CLUSTER_CELL_PX, cellCount, clusterPins, pinNear, projectPins, type PinBuffers } from './cluster';

/**
 * Comment pins in 3D, drawn by the GPU: one Points geometry for every pin (one draw call, however
 * many pins), on the helper layer (drawn after post-processing over the scene's depth). A pin stays
 * on its point; where geometry hides it, a second pass of the same points with the depth test
 * reversed draws it dimmed (the depth buffer is the occlusion test: nothing per pin on the CPU).
 * When the camera moves, one 'helpers' frame step projects the pins and clusters those closer than
 * CLUSTER_CELL_PX into one pin that shows how many it holds (digits from a small glyph atlas).
 * Nothing is allocated per frame: the buffers grow only when pins are added.
 */

/** A pin's state bits (aFlags). */
export const PIN_RESOLVED = 1;
export const PIN_SELECTED = 2;
/** Pin diameter, CSS pixels (a cluster is larger). */
export const PIN_SIZE_PX = 22;
export const CLUSTER_SIZE_PX = 32;
/** Opacity of a pin behind geometry. */
export const HIDDEN_PIN_OPACITY = 0.3;

export interface PinInput {
  id: string;
  position: readonly [number, number, number];
  resolved: boolean;
}

export interface CommentPins {
  /** Replaces the pins (the buffers grow as needed). */
  set(pins: readonly PinInput[]): void;
  /** Highlights one pin (null: none). */
  select(id: string | null): void;
  /** The pin (or cluster) under a CSS point of the canvas: its id, or the ids of the cluster's pins. */
  pinAt(x: number, y: number): { id: string; members: string[] } | null;
  /** Drawn pins after the last projection (single pins and clusters). */
  readonly drawn: number;
  /** Pins in the buffers. */
  readonly count: number;
  readonly object: Object3D;
  dispose(): void;
}

const vertexShader = /* glsl */ `
  attribute float aCount;
  attribute float aFlags;
  uniform float uPixelRatio;
  varying float vCount;
  varying float vFlags;
  void main() {
    vCount = aCount;
    vFlags = aFlags;
    if (aCount < 0.5) {
      gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
      gl_PointSize = 0.0;
      return;
    }
    vec4 mv = modelViewMatrix * vec4(position, 1.0);
    gl_Position = projectionMatrix * mv;
    // The pin sits on a surface: judge its depth a little in front of it, so the surface it is on
    // never hides it (and never makes it flicker between the two passes).
    vec4 nearer = mv;
    nearer.xyz *= 0.985;
    vec4 clipNearer = projectionMatrix * nearer;
    gl_Position.z = clipNearer.z / clipNearer.w * gl_Position.w;
    gl_PointSize = (aCount > 1.5 ? ${CLUSTER_SIZE_PX.toFixed(1)} : ${PIN_SIZE_PX.toFixed(1)}) * uPixelRatio;
  }`;

const fragmentShader = /* glsl */ `
  uniform float uOpacity;
  uniform sampler2D uGlyphs;
  varying float vCount;
  varying float vFlags;
  float glyphAt(vec2 p, float glyph) {
    // The atlas holds 11 glyphs side by side: 0-9 and '+'.
    if (p.x < 0.0 || p.x > 1.0 || p.y < 0.0 || p.y > 1.0) return 0.0;
    return texture2D(uGlyphs, vec2((glyph + p.x) / 11.0, 1.0 - p.y)).a;
  }
  void main() {
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    float r = length(p);
    float aa = 0.08;
    float disc = 1.0 - smoothstep(0.92 - aa, 0.92, r);
    if (disc <= 0.0) discard;
    bool resolved = mod(vFlags, 2.0) >= 1.0;
    bool selected = mod(floor(vFlags / 2.0), 2.0) >= 1.0;
    vec3 fill = resolved ? vec3(0.30, 0.62, 0.36) : vec3(0.15, 0.39, 0.92);
    if (vCount > 1.5) fill = vec3(0.12, 0.14, 0.18);
    vec3 ring = selected ? vec3(1.0, 0.78, 0.1) : vec3(1.0);
    float ringWidth = selected ? 0.3 : 0.18;
    vec3 colour = mix(fill, ring, smoothstep(0.92 - ringWidth - aa, 0.92 - ringWidth, r));
    if (vCount > 1.5) {
      float n = floor(vCount + 0.5);
      float chars = n < 10.0 ? 1.0 : (n < 100.0 ? 2.0 : 3.0);
      vec2 q = gl_PointCoord;
      float w = 0.2;
      float h = 0.38;
      float x0 = 0.5 - chars * w * 0.5;
      float i = floor((q.x - x0) / w);
      float text = 0.0;
      if (i >= 0.0 && i < chars) {
        float glyph;
        if (chars == 3.0) glyph = i < 2.0 ? 9.0 : 10.0; // 99+
        else if (chars == 2.0) glyph = i < 1.0 ? floor(n / 10.0) : mod(n, 10.0);
        else glyph = n;
        text = glyphAt(vec2((q.x - x0 - i * w) / w, (q.y - (0.5 - h * 0.5)) / h), glyph);
      }
      colour = mix(colour, vec3(1.0), text);
    } else {
      // A dot in the middle of a single pin.
      colour = mix(colour, vec3(1.0), 1.0 - smoothstep(0.22, 0.22 + aa, r));
    }
    gl_FragColor = vec4(colour, uOpacity * disc);
  }`;

/** The digits 0-9 and '+', white on transparent, drawn on a canvas (no image file). */
function glyphAtlas(): Texture | null {
  if (typeof document === 'undefined') return null;
  const canvas = document.createElement('canvas');
  canvas.width = 11 * 32;
  canvas.height = 48;
  const g = canvas.getContext('2d');
  if (!g) return null;
  g.fillStyle = '#fff';
  g.font = 'bold 40px system-ui, sans-serif';
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  for (let i = 0; i < 11; i++) g.fillText(i < 10 ? String(i) : '+', i * 32 + 16, 26);
  const texture = new CanvasTexture(canvas);
  texture.flipY = true;
  return texture;
}

export function createCommentPins(world: ViewerWorld, options: { canvas: HTMLCanvasElement; pixelRatio: () => number }): CommentPins {
  let capacity = 0;
  let count = 0;
  let ids: string[] = [];
  let buffers: PinBuffers = { positions: new Float32Array(0), screen: new Float32Array(0), counts: new Float32Array(0), cells: new Int32Array(0) };
  let flags = new Float32Array(0);
  let head = new Int32Array(0);
  let drawn = 0;
  let dirty = true;
  let selected: string | null = null;
  const geometry = new BufferGeometry();
  const glyphs = glyphAtlas();
  const uniforms = (opacity: number) => ({ uOpacity: { value: opacity }, uPixelRatio: { value: 1 }, uGlyphs: { value: glyphs } });
  const front = new ShaderMaterial({ name: 'CommentPins', uniforms: uniforms(1), vertexShader, fragmentShader, transparent: true, depthWrite: false, depthFunc: LessEqualDepth });
  const behind = new ShaderMaterial({ name: 'CommentPins.Hidden', uniforms: uniforms(HIDDEN_PIN_OPACITY), vertexShader, fragmentShader, transparent: true, depthWrite: false, depthFunc: GreaterDepth });
  const makePoints = (material: ShaderMaterial, order: number) => {
    const points = new Points(geometry, material);
    points.frustumCulled = false;
    points.layers.set(HELPER_LAYER);
    points.renderOrder = order;
    points.userData.annotation = true;
    return points;
  };
  const group = makePoints(behind, 1000);
  group.name = 'comment-pins';
  group.add(makePoints(front, 1001));
  // Hidden until there are pins: an empty group on the helper layer would still cost the helper
  // overlay its pass every frame.
  group.visible = false;
  // A bounding sphere that never culls: the vertex shader moves hidden pins out of the view.
  geometry.boundingSphere = new Sphere(new Vector3(), Infinity);

  const grow = (needed: number) => {
    if (needed <= capacity) return;
    capacity = Math.max(needed, capacity * 2, 64);
    buffers = { positions: new Float32Array(capacity * 3), screen: new Float32Array(capacity * 2), counts: new Float32Array(capacity), cells: new Int32Array(capacity) };
    flags = new Float32Array(capacity);
    geometry.setAttribute('position', new BufferAttribute(buffers.positions, 3));
    geometry.setAttribute('aCount', new BufferAttribute(buffers.counts, 1));
    geometry.setAttribute('aFlags', new BufferAttribute(flags, 1));
  };

  const viewProjection = new Matrix4();
  let lastWidth = 0;
  let lastHeight = 0;
  const update = (camera: Camera) => {
    const width = options.canvas.clientWidth;
    const height = options.canvas.clientHeight;
    if (width <= 0 || height <= 0) return;
    const cells = cellCount(width, height, CLUSTER_CELL_PX);
    if (head.length < cells) head = new Int32Array(cells);
    lastWidth = width;
    lastHeight = height;
    camera.updateMatrixWorld();
    viewProjection.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
    projectPins(buffers, count, viewProjection.elements, width, height);
    drawn = clusterPins(buffers, count, width, height, CLUSTER_CELL_PX, head);
    const countAttribute = geometry.getAttribute('aCount') as BufferAttribute | undefined;
    if (countAttribute) {
      // Every pin's count may change with the view: [0, count) goes to the GPU. While the pins
      // fill at least half of the buffer (as after any growth), the whole buffer goes: no update
      // range object is made per frame; a range only when most of the buffer is unused.
      countAttribute.clearUpdateRanges();
      if (count * 2 < capacity) countAttribute.addUpdateRange(0, count);
      countAttribute.needsUpdate = true;
    }
    const ratio = options.pixelRatio();
    front.uniforms.uPixelRatio.value = ratio;
    behind.uniforms.uPixelRatio.value = ratio;
  };

  const removeStep = addFrameStep(world, 'helpers', {
    name: 'comment-pins',
    run() {
      const camera = world.render.camera;
      if (!camera || count === 0) return;
      const resized = options.canvas.clientWidth !== lastWidth || options.canvas.clientHeight !== lastHeight;
      if (!dirty && !world.camera.moved && !resized) return;
      // A moved camera alone draws a picture anyway (the render system) and changes no shadow: the
      // pins follow it without asking for one, so an orbit frame keeps its shadow maps.
      const changed = dirty || resized;
      dirty = false;
      update(camera);
      if (changed) world.render.needsPicture = true;
    },
  });

  const writeFlags = () => {
    for (let i = 0; i < count; i++) flags[i] = (flags[i] % 2 >= 1 ? PIN_RESOLVED : 0) | (ids[i] === selected ? PIN_SELECTED : 0);
    const attribute = geometry.getAttribute('aFlags') as BufferAttribute | undefined;
    if (attribute) attribute.needsUpdate = true;
  };

  return {
    set(pins) {
      // No pins before and none now (a scene without comments, read after its first picture):
      // nothing on screen changes, and a still scene costs no frame.
      if (pins.length === 0 && count === 0) return;
      grow(pins.length);
      count = pins.length;
      ids = pins.map((p) => p.id);
      for (let i = 0; i < count; i++) {
        const p = pins[i].position;
        buffers.positions[i * 3] = p[0];
        buffers.positions[i * 3 + 1] = p[1];
        buffers.positions[i * 3 + 2] = p[2];
        flags[i] = (pins[i].resolved ? PIN_RESOLVED : 0) | (pins[i].id === selected ? PIN_SELECTED : 0);
      }
      for (let i = count; i < capacity; i++) buffers.counts[i] = 0;
      const position = geometry.getAttribute('position') as BufferAttribute | undefined;
      if (position) position.needsUpdate = true;
      const flagAttribute = geometry.getAttribute('aFlags') as BufferAttribute | undefined;
      if (flagAttribute) flagAttribute.needsUpdate = true;
      const countAttribute = geometry.getAttribute('aCount') as BufferAttribute | undefined;
      if (countAttribute) {
        countAttribute.needsUpdate = true;
        countAttribute.clearUpdateRanges();
      }
      geometry.setDrawRange(0, count);
      group.visible = count > 0;
      dirty = true;
      // The pins cast no shadow: a picture that keeps the shadow maps.
      world.render.needsPicture = true;
    },
    select(id) {
      if (selected === id) return;
      selected = id;
      writeFlags();
      world.render.needsPicture = true;
    },
    pinAt(x, y) {
      if (dirty && world.render.camera) update(world.render.camera);
      const i = pinNear(buffers, count, x, y, PIN_SIZE_PX / 2 + 4);
      if (i < 0) return null;
      const members: string[] = [];
      if (buffers.counts[i] > 1) {
        const cell = buffers.cells[i];
        for (let j = 0; j < count; j++) if (buffers.cells[j] === cell) members.push(ids[j]);
      } else members.push(ids[i]);
      return { id: ids[i], members };
    },
    get drawn() {
      return drawn;
    },
    get count() {
      return count;
    },
    object: group,
    dispose() {
      removeStep();
      group.removeFromParent();
      geometry.dispose();
      front.dispose();
      behind.dispose();
      glyphs?.dispose();
    },
  };
}
