/**
 * The triangle budget (issue 35, item 3): each quality tier may submit so many triangles a frame,
 * picture and shadow maps together. Only instanced groups with levels of detail can give way
 * (src/engine/instance-levels.ts): the budget raises their level bias, which scales the screen
 * error a simplified level may show and the size under which an instance becomes its impostor,
 * until the frame fits. While the camera moves the frame gets MOVING_BUDGET_SHARE of it (a moving
 * picture is forgiving and must come quickly); once the camera has rested REST_MS the whole budget
 * applies and the bias comes down again, so the picture refines at rest.
 *
 * The controller reads what the last frame drew (renderer.info, its shadow maps counted apart) and
 * sets the bias for the next. The shadow maps' levels follow their own maps, not the bias
 * (src/engine/instance-pass-levels.ts): they are a fixed part. The picture's part goes as about
 * 1 / bias^2 (with levels chosen by projected size over a field of instances, the instances inside
 * a given size grow with the square of the distance it is reached at, which the bias divides);
 * where the frame before showed the same view at another bias, the two split off what of the
 * picture does not give way (meshes without levels). Raising, it aims under the target at once;
 * lowering, to the finest bias predicted at REFINE_AIM of it, and never again at the same rest once
 * a lowering had to be undone (no oscillation between two biases on a still picture). A step that
 * changed nothing is followed by one of an octave, up or down. The bias moves in steps of
 * BIAS_STEP and stays within [1, MAX_LEVEL_BIAS]: the budget only ever coarsens, and an
 * unreachable budget (most triangles in meshes that have no levels) says `over`.
 *
 * The shadow maps are drawn only when the scene changed, not on camera-only frames: a moving
 * camera's frames are judged by what they draw, the picture; a frame at rest the budget asks for
 * redraws the shadow maps too, and is predicted with the triangles they cost when last drawn.
 */

/** Triangles a frame (picture and shadow maps) by quality tier. See README, "Triangle budget". */
export const TRIANGLE_BUDGETS = { low: 1_500_000, medium: 4_000_000, high: 12_000_000 } as const;
/** Share of the budget a frame gets while the camera moves. */
export const MOVING_BUDGET_SHARE = 0.5;
/** Milliseconds without camera motion after which the whole budget applies (the picture refines). */
export const REST_MS = 300;
/** The largest level bias: levels at eight times their screen error, impostors under 320 px. */
export const MAX_LEVEL_BIAS = 8;
/** The bias moves in quarter-octave steps (about 30% fewer or more triangles a step). */
export const BIAS_STEPS_PER_OCTAVE = 4;
export const BIAS_STEP = 2 ** (1 / BIAS_STEPS_PER_OCTAVE);
/** A lowered bias is the finest predicted to cost at most this share of the target. */
export const REFINE_AIM = 0.8;

export interface TriangleBudget {
  /** Triangles a frame may cost (0: no budget, the bias stays 1). */
  budget: number;
  /** The level bias the next frame draws with (setLevelView's `bias`). */
  bias: number;
  /** The last frame's picture triangles (every render pass but the shadow maps). */
  pictureTriangles: number;
  /** The triangles of the shadow maps last drawn whole (they are kept across camera-only frames). */
  shadowTriangles: number;
  /** The shadow triangles the last frame drew: the maps whole, a moving casters' pass (src/engine/moving-casters.ts), or 0. */
  frameShadowTriangles: number;
  /** What the last frame drew: its picture and the shadow maps it drew (none on a camera-only frame). */
  cost: number;
  /** The target the last frame was judged against (the budget, or its moving share). */
  target: number;
  /** Whether the last frame cost more than its target and no bias would do better (at MAX_LEVEL_BIAS, or nothing gives way). */
  over: boolean;
  /** World time (ms) of the last frame the camera moved in. */
  movedAt: number;
  /** Whether the bias was last changed by a lowering at rest. */
  lowered: boolean;
  /** Set when a lowering had to be undone at rest: no further lowering until the camera moves. */
  settled: boolean;
  /** The bias the last frame drew with (0: no frame to learn from), and whether it drew with the moving target. */
  drawnBias: number;
  drawnMoving: boolean;
  /** The frame before it, for the estimate of the picture's part that gives way (`movedAt` then: the same view if unchanged). */
  previousPicture: number;
  previousBias: number;
  previousMovedAt: number;
  drawnMovedAt: number;
  /** Triangles the shadow maps of the frame being drawn cost so far; null while it drew none (measureShadowPasses). */
  frameShadow: number | null;
  /**
   * Of the last frame's picture, the triangles of instances drawn finer than their coarsest level:
   * the most a higher bias could take away (Infinity: not known).
   */
  finerTriangles: number;
}

export function createTriangleBudget(budget = 0): TriangleBudget {
  return {
    budget,
    bias: 1,
    pictureTriangles: 0,
    shadowTriangles: 0,
    frameShadowTriangles: 0,
    cost: 0,
    target: 0,
    over: false,
    movedAt: -Infinity,
    lowered: false,
    settled: false,
    drawnBias: 0,
    drawnMoving: false,
    previousPicture: 0,
    previousBias: 0,
    previousMovedAt: -Infinity,
    drawnMovedAt: -Infinity,
    frameShadow: null,
    finerTriangles: Infinity,
  };
}

/** Whether the camera counts as moving at `nowMs` (it moved within REST_MS). */
export function budgetMoving(state: TriangleBudget, nowMs: number): boolean {
  return nowMs - state.movedAt < REST_MS;
}

/** Notes a frame in which the camera moved (before the frame is drawn). */
export function noteCameraMoved(state: TriangleBudget, nowMs: number): void {
  state.movedAt = nowMs;
  state.settled = false;
}

function quantizeUp(bias: number): number {
  // 2 ** (k / 4): whole octaves exactly (a millionth of a step over still rounds down).
  return Math.min(MAX_LEVEL_BIAS, 2 ** (Math.ceil(Math.log2(bias) * BIAS_STEPS_PER_OCTAVE - 1e-6) / BIAS_STEPS_PER_OCTAVE));
}

/**
 * The bias after a frame whose picture cost `picture` at `bias`, with `shadow` triangles of shadow
 * maps to come with it, against `target` (see the top of the file).
 */
function judge(state: TriangleBudget, picture: number, shadow: number, bias: number, target: number, moving: boolean): number {
  let variable = picture * bias * bias;
  let fixed = shadow;
  const probed = state.previousMovedAt === state.movedAt && state.previousBias > 0 && state.previousBias !== bias;
  if (probed) {
    const a = 1 / (state.previousBias * state.previousBias);
    const b = 1 / (bias * bias);
    variable = Math.max(0, (state.previousPicture - picture) / (a - b));
    fixed = shadow + Math.min(picture, Math.max(0, picture - variable * b));
  }
  if (picture + shadow > target) {
    if (picture === 0) return bias;
    // Every instance of the picture at its coarsest level (a city all cards): no bias takes anything away.
    if (state.finerTriangles <= 0) return bias;
    // Over even if every finer instance cost nothing: no bias fits; the largest at once (one more
    // frame, not a step a frame).
    if (picture + shadow - state.finerTriangles > target) return MAX_LEVEL_BIAS;
    // No instance changed level over the last step, or the split leaves no room (levels change by
    // whole instances, past their hysteresis, so two frames split a step function): twice the bias,
    // up to the largest, before the budget counts as unreachable.
    if (variable <= 0 || fixed >= target) return quantizeUp(bias * 2);
    // Aimed under the target at once, a step at least.
    return quantizeUp(Math.max(bias * BIAS_STEP, Math.sqrt(variable / (target - fixed))));
  }
  if (bias <= 1 || (state.settled && !moving)) return bias;
  // Nothing levelled in the picture: the bias does nothing.
  if (picture === 0) return 1;
  // A lowering that changed nothing: an octave down.
  if (variable <= 0) return probed ? Math.max(1, quantizeUp(bias / 2)) : bias;
  const room = REFINE_AIM * target - fixed;
  if (room <= 0) return bias;
  const next = Math.max(1, quantizeUp(Math.sqrt(variable / room)));
  return next < bias ? next : bias;
}

function targetOf(state: TriangleBudget, moving: boolean): number {
  return moving ? state.budget * MOVING_BUDGET_SHARE : state.budget;
}

/**
 * Whether a picture is due only to refine: the last one was drawn with the moving share, the camera
 * has now rested, and the whole budget allows a lower bias. The render system asks it every frame,
 * so that a still camera gets its refined picture without anything else asking for one.
 */
export function refineDue(state: TriangleBudget, nowMs: number): boolean {
  if (state.budget <= 0 || !state.drawnMoving || budgetMoving(state, nowMs)) return false;
  return judge(state, state.pictureTriangles, state.shadowTriangles, state.drawnBias, targetOf(state, false), false) !== state.drawnBias;
}

/** Before a frame is drawn: the first frame at rest after moving frames is judged against the whole budget. */
export function beforeFrame(state: TriangleBudget, nowMs: number): void {
  if (state.budget <= 0 || !state.drawnMoving || budgetMoving(state, nowMs)) return;
  const next = judge(state, state.pictureTriangles, state.shadowTriangles, state.drawnBias, targetOf(state, false), false);
  if (next !== state.drawnBias) state.lowered = next < state.drawnBias;
  state.bias = next;
}

/**
 * After a frame drew with `state.bias`: its triangles in all (`frameTriangles`, renderer.info) and
 * in shadow maps (`state.frameShadow`). Sets the bias for the next frame; returns true when it
 * changed (a new picture is then due). Without levelled groups in the scene (`levelled` false) the
 * bias does nothing: it is held at 1, with no history, for the groups that come later.
 * `shadowsWhole` false: the frame drew only the moving casters' shadows (src/engine/moving-casters.ts).
 * `finer`: of the picture, the triangles of instances finer than their coarsest level (Infinity: not known).
 */
export function afterFrame(state: TriangleBudget, frameTriangles: number, nowMs: number, levelled = true, shadowsWhole = true, finer = Infinity): boolean {
  const moving = budgetMoving(state, nowMs);
  const shadow = state.frameShadow;
  state.frameShadow = null;
  const picture = Math.max(0, frameTriangles - (shadow ?? 0));
  // The moving casters' own pass (shadowsWhole false) is not what redrawing the maps costs.
  if (shadow !== null && shadowsWhole) state.shadowTriangles = shadow;
  state.frameShadowTriangles = shadow ?? 0;
  const bias = state.bias;
  state.previousPicture = state.pictureTriangles;
  state.previousBias = state.drawnBias;
  state.previousMovedAt = state.drawnMovedAt;
  state.drawnMovedAt = state.movedAt;
  state.pictureTriangles = picture;
  state.cost = frameTriangles;
  state.drawnBias = bias;
  state.drawnMoving = moving;
  state.finerTriangles = finer;
  if (state.budget <= 0 || !levelled) {
    state.target = state.budget > 0 ? targetOf(state, moving) : 0;
    state.over = false;
    state.bias = 1;
    state.lowered = false;
    state.settled = false;
    state.previousBias = 0;
    state.drawnBias = 0;
    return bias !== 1;
  }
  const target = targetOf(state, moving);
  state.target = target;
  // What comes with the next frame: the shadow maps drawn now; none on a moving camera's next
  // frame; at rest, the next frame (asked for with the scene) draws them as they were last drawn.
  const next = judge(state, picture, shadow ?? (moving ? 0 : state.shadowTriangles), bias, target, moving);
  // A lowering at rest overshot: stay above until the camera moves again.
  if (next > bias && !moving && state.lowered) state.settled = true;
  if (next !== bias) state.lowered = next < bias && !moving;
  state.over = frameTriangles > target && next === bias;
  state.bias = next;
  return next !== bias;
}

/** Sets the budget (a tier's): what was learnt at another budget (a settled rest, the split) is forgotten. */
export function setTriangleBudget(state: TriangleBudget, budget: number): void {
  if (state.budget === budget) return;
  state.budget = budget;
  state.settled = false;
  state.lowered = false;
  // No frame drawn at another budget (or another tier's pixels) to learn from.
  state.drawnBias = 0;
  state.drawnMoving = false;
}

/** What a renderer's shadow-map updates need of the budget. */
interface ShadowPasses {
  enabled: boolean;
  autoUpdate: boolean;
  needsUpdate: boolean;
  render(lights: readonly unknown[], scene: unknown, camera: unknown): void;
}

/**
 * Counts the triangles of `renderer`'s shadow-map updates into `state.frameShadow` (three.js draws
 * them inside render(), into the same renderer.info as the picture). Installed once a renderer.
 */
export function measureShadowPasses(renderer: { shadowMap: ShadowPasses; info: { render: { triangles: number } } }, state: TriangleBudget): void {
  const shadowMap = renderer.shadowMap;
  const info = renderer.info.render;
  const draw = shadowMap.render.bind(shadowMap);
  shadowMap.render = (lights, scene, camera) => {
    const updating = shadowMap.enabled && (shadowMap.autoUpdate || shadowMap.needsUpdate);
    const before = info.triangles;
    draw(lights, scene, camera);
    // An update without lights: no shadow map at all (0, not the last ones drawn).
    if (updating) state.frameShadow = (state.frameShadow ?? 0) + info.triangles - before;
  };
}
