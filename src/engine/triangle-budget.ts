/**
 * The triangle budget (issue 35, item 3): each quality tier may submit so many triangles a frame,
 * picture and shadow maps together. Only instanced groups with levels of detail can give way
 * (src/engine/instance-levels.ts): the budget raises their level bias, which scales the screen
 * error a simplified level may show and the size under which an instance becomes its impostor,
 * until the frame fits. While the camera moves the frame gets MOVING_BUDGET_SHARE of it (a moving
 * picture is forgiving and must come quickly); once the camera has rested REST_MS the whole budget
 * applies and the bias comes down again, so the picture refines at rest.
 *
 * The controller reads what the last frame cost (renderer.info) and sets the bias for the next:
 * with levels chosen by projected size over a field of instances, the instances inside a given
 * projected size grow with the square of the distance that size is reached at, which the bias
 * divides, so the cost of a view goes as about 1 / bias^2. Raising, it aims under the target at
 * once; lowering, only when the frame cost under LOWER_BELOW of the target, to a bias predicted
 * at REFINE_AIM of it, and never again at the same rest once a lowering had to be undone (no
 * oscillation between two biases on a still picture). The bias moves in steps of BIAS_STEP and
 * stays within [1, MAX_LEVEL_BIAS]: the budget only ever coarsens, and an unreachable budget (most
 * triangles in meshes that have no levels) leaves the bias at its largest and says `over`.
 *
 * The shadow maps are drawn only when the scene changed, not on camera-only frames: a frame's cost
 * is its picture's triangles plus those of the last shadow maps drawn, so a camera-only frame is
 * judged as a frame that would redraw them.
 */

/** Triangles a frame (picture and shadow maps) by quality tier; 0: no budget. See README, "Triangle budget". */
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
/** Refinement waits until the frame costs under this share of its target... */
export const LOWER_BELOW = 0.6;
/** ...and aims the lowered bias at this share. */
export const REFINE_AIM = 0.8;

export interface TriangleBudget {
  /** Triangles a frame may cost (0: no budget, the bias stays 1). */
  budget: number;
  /** The level bias the next frame draws with (setLevelView's `bias`). */
  bias: number;
  /** The last frame's picture triangles (every render pass but the shadow maps). */
  pictureTriangles: number;
  /** The triangles of the shadow maps last drawn (they are kept across camera-only frames). */
  shadowTriangles: number;
  /** What the last frame cost: its picture plus the shadow maps last drawn. */
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
  /** The bias the last frame drew with, and whether it drew with the moving target. */
  drawnBias: number;
  drawnMoving: boolean;
  /** The frame before it, for the estimate of the part that gives way (`movedAt` then: the same view if unchanged). */
  previousCost: number;
  previousBias: number;
  previousMovedAt: number;
  drawnMovedAt: number;
  /** Triangles the shadow maps of the frame being drawn cost so far; null while it drew none (measureShadowPasses). */
  frameShadow: number | null;
}

export function createTriangleBudget(budget = 0): TriangleBudget {
  return {
    budget,
    bias: 1,
    pictureTriangles: 0,
    shadowTriangles: 0,
    cost: 0,
    target: 0,
    over: false,
    movedAt: -Infinity,
    lowered: false,
    settled: false,
    drawnBias: 1,
    drawnMoving: false,
    previousCost: 0,
    previousBias: 0,
    previousMovedAt: -Infinity,
    drawnMovedAt: -Infinity,
    frameShadow: null,
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
  // 2 ** (k / 4): whole octaves exactly.
  return Math.min(MAX_LEVEL_BIAS, 2 ** (Math.ceil(Math.log2(bias) * BIAS_STEPS_PER_OCTAVE - 1e-9) / BIAS_STEPS_PER_OCTAVE));
}

/**
 * The bias after a frame of `cost` drawn at `bias`, against `target` (see the top of the file).
 * Where the frame before showed the same view at another bias, the cost is split into a part that
 * gives way as 1 / bias^2 and a fixed part (meshes without levels, casters already at their coarsest
 * mesh), and the bias aimed through that split: a budget the fixed part alone exceeds takes the
 * largest bias at once; a step that changed nothing is followed by one of an octave.
 */
function judge(state: TriangleBudget, cost: number, bias: number, target: number, moving: boolean): number {
  let variable = cost * bias * bias;
  let fixed = 0;
  if (state.previousMovedAt === state.movedAt && state.previousBias > 0 && state.previousBias !== bias && state.previousCost > 0) {
    const a = 1 / (state.previousBias * state.previousBias);
    const b = 1 / (bias * bias);
    variable = Math.max(0, (state.previousCost - cost) / (a - b));
    fixed = Math.min(cost, Math.max(0, cost - variable * b));
  }
  if (cost > target) {
    // No instance changed level over the last step (levels change by whole instances, past their
    // hysteresis): twice the bias, up to the largest, before the budget counts as unreachable.
    if (variable <= 0) return quantizeUp(bias * 2);
    if (fixed >= target) return MAX_LEVEL_BIAS;
    // Aimed under the target at once, a step at least.
    return quantizeUp(Math.max(bias * BIAS_STEP, Math.sqrt(variable / (target - fixed))));
  }
  if (bias > 1 && cost < LOWER_BELOW * target && !(state.settled && !moving)) {
    const aim = REFINE_AIM * target - fixed;
    return aim > 0 && variable > 0 ? Math.min(bias, Math.max(1, quantizeUp(Math.sqrt(variable / aim)))) : bias;
  }
  return bias;
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
  return judge(state, state.cost, state.drawnBias, targetOf(state, false), false) !== state.drawnBias;
}

/** Before a frame is drawn: the first frame at rest after moving frames is judged against the whole budget. */
export function beforeFrame(state: TriangleBudget, nowMs: number): void {
  if (state.budget <= 0 || !state.drawnMoving || budgetMoving(state, nowMs)) return;
  const next = judge(state, state.cost, state.drawnBias, targetOf(state, false), false);
  if (next !== state.drawnBias) state.lowered = next < state.drawnBias;
  state.bias = next;
}

/**
 * After a frame drew with `state.bias`: its triangles in all (`frameTriangles`, renderer.info) and
 * in shadow maps (`state.frameShadow`). Sets the bias for the next frame; returns true when it
 * changed (a new picture is then due).
 */
export function afterFrame(state: TriangleBudget, frameTriangles: number, nowMs: number): boolean {
  const moving = budgetMoving(state, nowMs);
  const shadow = state.frameShadow;
  state.frameShadow = null;
  const picture = Math.max(0, frameTriangles - (shadow ?? 0));
  if (shadow !== null) state.shadowTriangles = shadow;
  state.pictureTriangles = picture;
  const cost = picture + state.shadowTriangles;
  const bias = state.bias;
  state.previousCost = state.cost;
  state.previousBias = state.drawnBias;
  state.previousMovedAt = state.drawnMovedAt;
  state.drawnMovedAt = state.movedAt;
  state.cost = cost;
  state.drawnBias = bias;
  state.drawnMoving = moving;
  if (state.budget <= 0) {
    state.target = 0;
    state.over = false;
    state.bias = 1;
    state.lowered = false;
    return bias !== 1;
  }
  const target = targetOf(state, moving);
  state.target = target;
  const next = judge(state, cost, bias, target, moving);
  // A lowering at rest overshot: stay above until the camera moves again.
  if (next > bias && !moving && state.lowered) state.settled = true;
  if (next !== bias) state.lowered = next < bias && !moving;
  state.over = cost > target && next === bias;
  state.bias = next;
  return next !== bias;
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
    const drawn = shadowMap.enabled && (shadowMap.autoUpdate || shadowMap.needsUpdate) && lights.length > 0;
    const before = info.triangles;
    draw(lights, scene, camera);
    if (drawn) state.frameShadow = (state.frameShadow ?? 0) + info.triangles - before;
  };
}
