import { readFileSync } from 'node:fs';
import { type Object3D } from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { describe, expect, it } from 'vitest';
import { packGlb } from '../../support/glb';
import { AnimationState, Transform } from '../../../components';
import { createViewerWorld, type AnimationEvent, type ModelRecord, type ViewerWorld } from '../../../src/engine/world';
import { spawnModel } from '../../../src/scene/model-entities';
import {
  attachAnimationEvents,
  findAnimation,
  isAnimationRunning,
  listAnimations,
  onAnimationEvent,
  pauseAnimation,
  playAnimation,
  resumeAnimation,
  seekAnimation,
  setAnimationSpeed,
  stopAnimation,
} from '../../../src/viewer/animation';
import { animationMixerSystem } from '../../../systems/animationMixerSystem';
import { transformSystem } from '../../../systems/transformSystem';

// ---- glTF helpers: read the shared models (never copied), parse the GLB ourselves -----------

const MODELS = new URL('../../../../shared/models/', import.meta.url);

interface Accessor {
  bufferView: number;
  byteOffset?: number;
  componentType: number;
  count: number;
  type: 'SCALAR' | 'VEC3' | 'VEC4';
}
interface GltfJson {
  nodes: { name?: string; translation?: number[]; rotation?: number[]; scale?: number[] }[];
  animations?: {
    name?: string;
    channels: { sampler: number; target: { node: number; path: string } }[];
    samplers: { input: number; output: number; interpolation?: string }[];
  }[];
  accessors: Accessor[];
  bufferViews: { byteOffset?: number; byteLength: number; byteStride?: number }[];
  materials?: Record<string, unknown>[];
  [key: string]: unknown;
}

interface Glb {
  json: GltfJson;
  bin: Uint8Array;
}

function readGlb(file: string): Glb {
  const bytes = new Uint8Array(readFileSync(new URL(file, MODELS)));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength))) as GltfJson;
  const binAt = 20 + jsonLength;
  const binLength = view.getUint32(binAt, true);
  return { json, bin: bytes.subarray(binAt + 8, binAt + 8 + binLength) };
}

/** A GLB of `glb`'s JSON and BIN chunk. */
const packed = ({ json, bin }: Glb): ArrayBuffer => packGlb(json, bin).buffer;

/** Drops images and textures so the model parses in Node (no image decoding there). */
function withoutTextures(glb: Glb): Glb {
  const json = structuredClone(glb.json);
  delete json.images;
  delete json.textures;
  delete json.samplers;
  for (const m of json.materials ?? []) {
    const pbr = m.pbrMetallicRoughness as Record<string, unknown> | undefined;
    if (pbr) for (const k of Object.keys(pbr)) if (k.endsWith('Texture')) delete pbr[k];
    for (const k of Object.keys(m)) if (k.endsWith('Texture')) delete m[k];
  }
  return { json, bin: glb.bin };
}

/** Float accessor values, as read from the BIN chunk. */
function floats(glb: Glb, index: number): number[] {
  const a = glb.json.accessors[index];
  expect(a.componentType).toBe(5126);
  const bv = glb.json.bufferViews[a.bufferView];
  const size = { SCALAR: 1, VEC3: 3, VEC4: 4 }[a.type];
  const stride = bv.byteStride ?? size * 4;
  const view = new DataView(glb.bin.buffer, glb.bin.byteOffset + (bv.byteOffset ?? 0) + (a.byteOffset ?? 0));
  const out: number[] = [];
  for (let i = 0; i < a.count; i++) for (let k = 0; k < size; k++) out.push(view.getFloat32(i * stride + k * 4, true));
  return out;
}

function parse(data: ArrayBuffer): Promise<GLTF> {
  return new Promise((resolve, reject) => new GLTFLoader().parse(data, '', resolve, reject));
}

// ---- the viewer under test ------------------------------------------------------------------

interface Loaded {
  world: ViewerWorld;
  record: ModelRecord;
  glb: Glb;
  events: AnimationEvent[];
}

async function load(file: string, modelId = 'model-1'): Promise<Loaded> {
  let glb = readGlb(file);
  if (file === 'InterpolationTest.glb') glb = withoutTextures(glb);
  const gltf = await parse(packed(glb));
  const world = createViewerWorld();
  const record = spawnModel(world, gltf, { modelId, name: file });
  attachAnimationEvents(world, record);
  const events: AnimationEvent[] = [];
  onAnimationEvent(world, (e) => events.push(e));
  transformSystem(world);
  return { world, record, glb, events };
}

/** One frame of the pipeline's animation part, by hand. */
function step(world: ViewerWorld, delta: number): void {
  world.time.delta = delta;
  animationMixerSystem(world);
  transformSystem(world);
}

function steps(world: ViewerWorld, delta: number, n: number): void {
  for (let i = 0; i < n; i++) step(world, delta);
}

function position(eid: number): number[] {
  return Array.from(Transform.position.subarray(eid * 3, eid * 3 + 3));
}

function rotation(eid: number): number[] {
  return Array.from(Transform.rotation.subarray(eid * 4, eid * 4 + 4));
}

function worldTranslation(eid: number): number[] {
  return Array.from(Transform.world.subarray(eid * 16 + 12, eid * 16 + 15));
}

function expectClose(actual: number[], expected: number[], digits = 4): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((v, i) => expect(v).toBeCloseTo(expected[i], digits));
}

/** Keyframes of one channel of one animation, from the JSON and BIN. */
function channel(glb: Glb, animation: number, index = 0) {
  const a = glb.json.animations![animation];
  const c = a.channels[index];
  const s = a.samplers[c.sampler];
  const times = floats(glb, s.input);
  const values = floats(glb, s.output);
  const size = values.length / times.length / (s.interpolation === 'CUBICSPLINE' ? 3 : 1);
  /** Keyframe k's value (for CUBICSPLINE, the value between the in and out tangents). */
  const key = (k: number) => (s.interpolation === 'CUBICSPLINE' ? values.slice((3 * k + 1) * size, (3 * k + 2) * size) : values.slice(k * size, (k + 1) * size));
  /** LINEAR for vectors, or STEP. */
  const at = (t: number): number[] => {
    if (t <= times[0]) return key(0);
    const last = times.length - 1;
    if (t >= times[last]) return key(last);
    let k = 0;
    while (times[k + 1] <= t) k++;
    if (s.interpolation === 'STEP') return key(k);
    const u = (t - times[k]) / (times[k + 1] - times[k]);
    return key(k).map((v, i) => v + (key(k + 1)[i] - v) * u);
  };
  return { node: c.target.node, path: c.target.path, times, key, at, last: key(times.length - 1), interpolation: s.interpolation ?? 'LINEAR' };
}

function nodeEid(record: ModelRecord, node: number): number {
  const eid = record.nodes.get(String(node));
  if (!eid) throw new Error(`node ${node} not registered`);
  return eid;
}

function durationOf(glb: Glb, animation: number): number {
  const a = glb.json.animations![animation];
  return Math.max(...a.samplers.map((s) => Math.max(...floats(glb, s.input))));
}

const BOX = 'BoxAnimated.glb';
const INTERPOLATION = 'InterpolationTest.glb';

// ---- tests --------------------------------------------------------------------------------

describe('listAnimations', () => {
  it('lists BoxAnimated: its one unnamed animation as animation_0, duration and tracks from the file', async () => {
    const { record, glb } = await load(BOX);
    expect(glb.json.animations![0].name).toBeUndefined();
    const list = listAnimations(record);
    expect(list).toHaveLength(1);
    expect(list[0].id).toBe('0');
    expect(list[0].name).toBe('animation_0');
    expect(list[0].duration).toBeCloseTo(durationOf(glb, 0), 6);
    expect(list[0].duration).toBeCloseTo(3.70833, 4);
    expect(list[0].tracks).toBe(glb.json.animations![0].channels.length);
  });

  it('lists InterpolationTest: nine named animations in file order', async () => {
    const { record, glb } = await load(INTERPOLATION);
    const list = listAnimations(record);
    const animations = glb.json.animations!;
    expect(list.map((a) => a.name)).toEqual(animations.map((a) => a.name));
    expect(list.map((a) => a.id)).toEqual(animations.map((_, i) => String(i)));
    list.forEach((a, i) => {
      expect(a.duration).toBeCloseTo(durationOf(glb, i), 6);
      expect(a.tracks).toBe(animations[i].channels.length);
    });
  });

  it("names unnamed animations 'animation_N' by their index", async () => {
    // A built file: animation 0 named, animation 1 unnamed.
    const glb = readGlb(BOX);
    const json = structuredClone(glb.json);
    const original = json.animations![0];
    json.animations = [{ ...original, name: 'Lift' }, { ...structuredClone(original), channels: [original.channels[1]] }];
    delete json.animations[1].name;
    const gltf = await parse(packed({ json, bin: glb.bin }));
    // Also a clip that reaches spawnModel without a name at all.
    gltf.animations[0].name = '';
    const world = createViewerWorld();
    const record = spawnModel(world, gltf, { modelId: 'm', name: 'built.glb' });
    expect(listAnimations(record).map((a) => a.name)).toEqual(['animation_0', 'animation_1']);
    expect(listAnimations(record).map((a) => a.tracks)).toEqual([2, 1]);
    expect(findAnimation(record, 'animation_1')).toBe(record.animations[1]);
    expect(findAnimation(record, 1)).toBe(record.animations[1]);
  });

  it('finds animations by id or name and refuses unknown ones', async () => {
    const { record } = await load(INTERPOLATION);
    expect(findAnimation(record, 'Linear Translation').id).toBe('8');
    expect(findAnimation(record, 3).name).toBe('Step Rotation');
    expect(() => findAnimation(record, 'Nope')).toThrow(`Model "${INTERPOLATION}" has no animation "Nope".`);
  });
});

describe('playAnimation', () => {
  it('moves the node as the keyframes say', async () => {
    const { world, record, glb } = await load(BOX);
    const translation = channel(glb, 0, 1);
    expect(translation.path).toBe('translation');
    const eid = nodeEid(record, translation.node);
    playAnimation(world, record, 'animation_0');
    let t = 0;
    for (const delta of [0.3, 0.4, 0.9, 0.5, 1.0]) {
      step(world, delta);
      t += delta;
      expectClose(position(eid), translation.at(t));
      // The node is a scene root: its world translation is its local one.
      expectClose(worldTranslation(eid), translation.at(t));
    }
  });

  it('loops: keeps playing past the duration and emits loop', async () => {
    const { world, record, glb, events } = await load(BOX);
    const translation = channel(glb, 0, 1);
    const eid = nodeEid(record, translation.node);
    const duration = record.animations[0].clip.duration;
    playAnimation(world, record, 0);
    const delta = 0.1;
    const n = Math.ceil((duration * 2.5) / delta);
    let t = 0;
    for (let i = 0; i < n; i++) {
      step(world, delta);
      t += delta;
      expectClose(position(eid), translation.at(t % duration), 3);
    }
    expect(AnimationState.playing[record.eid]).toBe(1);
    expect(isAnimationRunning(record.animations[0])).toBe(true);
    const loops = events.filter((e) => e.eventType === 'loop');
    expect(loops.length).toBe(2);
    expect(events.some((e) => e.eventType === 'finish')).toBe(false);
    expect(loops[0]).toMatchObject({ modelId: 'model-1', animationName: 'animation_0', isPlaying: true, loop: true });
    expect(loops[0].time).toBeLessThan(delta);
  });

  it('once: emits finish, holds the last frame and marks the model not playing', async () => {
    const { world, record, glb, events } = await load(BOX);
    const translation = channel(glb, 0, 1);
    const spin = channel(glb, 0, 0);
    const moved = nodeEid(record, translation.node);
    const spun = nodeEid(record, spin.node);
    const duration = record.animations[0].clip.duration;
    playAnimation(world, record, 'animation_0', { loop: false });
    expect(AnimationState.playing[record.eid]).toBe(1);
    steps(world, 0.25, Math.ceil(duration / 0.25) + 1);

    const finishes = events.filter((e) => e.eventType === 'finish');
    expect(finishes).toHaveLength(1);
    expect(finishes[0]).toEqual({
      modelId: 'model-1',
      animationName: 'animation_0',
      eventType: 'finish',
      isPlaying: false,
      time: duration,
      weight: 1,
      duration,
      loop: false,
    });
    expect(events.some((e) => e.eventType === 'loop')).toBe(false);
    expect(AnimationState.playing[record.eid]).toBe(0);
    expect(AnimationState.running[record.eid]).toBe(0);
    expect(isAnimationRunning(record.animations[0])).toBe(false);
    expectClose(position(moved), translation.last);
    expectClose(rotation(spun), spin.last);

    // Later frames keep the last frame.
    steps(world, 0.5, 4);
    expectClose(position(moved), translation.last);
    expectClose(rotation(spun), spin.last);
    expectClose(worldTranslation(moved), translation.last);
  });

  it('starts at a given time (clamped to the duration) with a given weight', async () => {
    const { world, record, glb, events } = await load(BOX);
    const translation = channel(glb, 0, 1);
    const eid = nodeEid(record, translation.node);
    playAnimation(world, record, 0, { time: 1.0, weight: 0.5 });
    expect(events[0]).toMatchObject({ eventType: 'start', time: 1.0, weight: 0.5 });
    step(world, 0.5);
    // Half weight over the rest pose (the node's own translation is zero).
    expectClose(position(eid), translation.at(1.5).map((v) => v * 0.5));
    playAnimation(world, record, 0, { time: 99 });
    expect(events[1].time).toBe(record.animations[0].clip.duration);
  });

  it('plays at full weight again when a later play gives no weight', async () => {
    const { world, record, events } = await load(BOX);
    playAnimation(world, record, 0, { weight: 0.25 });
    playAnimation(world, record, 0);
    expect(events.map((e) => e.weight)).toEqual([0.25, 1]);
    expect(record.animations[0].action!.getEffectiveWeight()).toBe(1);
  });

  it('restarts from the beginning when played again', async () => {
    const { world, record, glb } = await load(BOX);
    const translation = channel(glb, 0, 1);
    const eid = nodeEid(record, translation.node);
    playAnimation(world, record, 0);
    steps(world, 0.5, 3);
    playAnimation(world, record, 0);
    step(world, 0.2);
    expectClose(position(eid), translation.at(0.2));
  });

  it('follows STEP, LINEAR and CUBICSPLINE keyframes of InterpolationTest', async () => {
    const { world, record, glb } = await load(INTERPOLATION);
    const names = ['Step Translation', 'Linear Translation', 'CubicSpline Translation', 'Step Scale', 'Linear Scale'];
    const indices = names.map((n) => glb.json.animations!.findIndex((a) => a.name === n));
    for (const i of indices) playAnimation(world, record, i);
    const channels = indices.map((i) => channel(glb, i));
    const read = (c: ReturnType<typeof channel>) => {
      const eid = nodeEid(record, c.node);
      return c.path === 'scale' ? Array.from(Transform.scale.subarray(eid * 3, eid * 3 + 3)) : position(eid);
    };
    // Step to each key time of the linear translation (all share nearly the same times).
    let t = 0;
    for (const target of [0.2, 0.4166666567325592, 0.6, 0.8333333134651184, 1.1, 1.25, 1.5]) {
      step(world, target - t);
      t = target;
      for (const c of channels) {
        if (c.interpolation === 'CUBICSPLINE') {
          const k = c.times.findIndex((x) => Math.abs(x - t) < 1e-6);
          if (k >= 0) expectClose(read(c), c.key(k), 3);
        } else {
          expectClose(read(c), c.at(t), 3);
        }
      }
    }
  });
});

describe('stopAnimation', () => {
  it('marks the model not playing when the last running action stops, and restores the pose', async () => {
    const { world, record, glb, events } = await load(INTERPOLATION);
    const step8 = channel(glb, 6); // Step Translation
    const lin8 = channel(glb, 8); // Linear Translation
    const restStep = glb.json.nodes[step8.node].translation!;
    playAnimation(world, record, 'Step Translation');
    playAnimation(world, record, 'Linear Translation');
    expect(AnimationState.running[record.eid]).toBe(2);
    steps(world, 0.3, 2);
    expectClose(position(nodeEid(record, lin8.node)), lin8.at(0.6), 3);

    stopAnimation(world, record, 'Step Translation');
    expect(events.at(-1)).toMatchObject({ eventType: 'stop', animationName: 'Step Translation', isPlaying: true });
    expect(AnimationState.playing[record.eid]).toBe(1);
    expect(AnimationState.running[record.eid]).toBe(1);
    step(world, 0.1);
    expectClose(position(nodeEid(record, step8.node)), restStep, 4);
    expectClose(position(nodeEid(record, lin8.node)), lin8.at(0.7), 3);

    stopAnimation(world, record, 'Linear Translation');
    expect(events.at(-1)).toMatchObject({ eventType: 'stop', animationName: 'Linear Translation', isPlaying: false });
    expect(AnimationState.playing[record.eid]).toBe(0);
    expect(AnimationState.running[record.eid]).toBe(0);
    step(world, 0.1);
    expectClose(position(nodeEid(record, lin8.node)), glb.json.nodes[lin8.node].translation!, 4);
    const frozen = position(nodeEid(record, lin8.node));
    steps(world, 0.2, 3);
    expect(position(nodeEid(record, lin8.node))).toEqual(frozen);
  });

  it('does nothing for an animation that never played', async () => {
    const { world, record, events } = await load(BOX);
    stopAnimation(world, record, 0);
    expect(events).toHaveLength(0);
    expect(AnimationState.playing[record.eid]).toBe(0);
  });
});

describe('pauseAnimation and resumeAnimation', () => {
  it('freeze and continue the animation where it was', async () => {
    const { world, record, glb, events } = await load(BOX);
    const translation = channel(glb, 0, 1);
    const eid = nodeEid(record, translation.node);
    playAnimation(world, record, 0);
    steps(world, 0.25, 2);
    expectClose(position(eid), translation.at(0.5));

    pauseAnimation(world, record, 0);
    expect(events.at(-1)).toMatchObject({ eventType: 'pause', isPlaying: false });
    expect(events.at(-1)!.time).toBeCloseTo(0.5, 6);
    expect(AnimationState.playing[record.eid]).toBe(0);
    steps(world, 0.25, 4);
    expectClose(position(eid), translation.at(0.5));

    resumeAnimation(world, record, 0);
    expect(events.at(-1)).toMatchObject({ eventType: 'resume', isPlaying: true });
    expect(AnimationState.playing[record.eid]).toBe(1);
    step(world, 0.25);
    expectClose(position(eid), translation.at(0.75));
  });

  it('ignore a pause of a stopped animation and a resume of a running one', async () => {
    const { world, record, events } = await load(BOX);
    pauseAnimation(world, record, 0);
    expect(events).toHaveLength(0);
    playAnimation(world, record, 0);
    resumeAnimation(world, record, 0);
    pauseAnimation(world, record, 0);
    pauseAnimation(world, record, 0);
    expect(events.map((e) => e.eventType)).toEqual(['start', 'pause']);
  });

  it('keep a paused animation still while another plays', async () => {
    const { world, record, glb } = await load(INTERPOLATION);
    const step8 = channel(glb, 6);
    const lin = channel(glb, 8);
    playAnimation(world, record, 'Step Translation');
    playAnimation(world, record, 'Linear Translation');
    step(world, 0.6);
    pauseAnimation(world, record, 'Step Translation');
    expect(AnimationState.playing[record.eid]).toBe(1);
    expect(AnimationState.running[record.eid]).toBe(1);
    step(world, 0.5);
    expectClose(position(nodeEid(record, step8.node)), step8.at(0.6), 3);
    expectClose(position(nodeEid(record, lin.node)), lin.at(1.1), 3);
  });
});

describe('setAnimationSpeed', () => {
  it('clamps to 0.1 and refuses non-numbers', () => {
    const world = createViewerWorld();
    expect(setAnimationSpeed(world, 2)).toBe(2);
    expect(setAnimationSpeed(world, 0.05)).toBe(0.1);
    expect(world.animation.speed).toBe(0.1);
    expect(setAnimationSpeed(world, 0)).toBe(0.1);
    expect(setAnimationSpeed(world, -3)).toBe(0.1);
    expect(setAnimationSpeed(world, 0.1)).toBe(0.1);
    expect(() => setAnimationSpeed(world, Number.NaN)).toThrow('Animation speed must be a number, got NaN.');
    expect(() => setAnimationSpeed(world, Infinity)).toThrow();
    expect(world.animation.speed).toBe(0.1);
  });

  it('scales how far each frame advances the animation', async () => {
    const { world, record, glb } = await load(BOX);
    const translation = channel(glb, 0, 1);
    const eid = nodeEid(record, translation.node);
    playAnimation(world, record, 0);

    setAnimationSpeed(world, 0.5);
    steps(world, 0.4, 4); // 1.6 s of frames at half speed
    expectClose(position(eid), translation.at(0.8));

    setAnimationSpeed(world, 2);
    step(world, 0.25); // +0.5
    expectClose(position(eid), translation.at(1.3));

    setAnimationSpeed(world, 0.01); // clamped to 0.1
    step(world, 1); // +0.1
    expectClose(position(eid), translation.at(1.4));
  });
});

describe('animation events', () => {
  it('carry modelId, animationName, eventType, isPlaying, time, weight, duration and loop', async () => {
    const { world, record, events } = await load(INTERPOLATION, 'interp-7');
    const duration = findAnimation(record, 'Linear Scale').clip.duration;
    playAnimation(world, record, 'Linear Scale');
    step(world, 0.5);
    pauseAnimation(world, record, 'Linear Scale');
    resumeAnimation(world, record, 'Linear Scale');
    stopAnimation(world, record, 'Linear Scale');
    playAnimation(world, record, 'Linear Scale', { loop: false, weight: 0.75 });
    steps(world, 0.5, 4);
    const base = { modelId: 'interp-7', animationName: 'Linear Scale', duration };
    expect(events).toEqual([
      { ...base, eventType: 'start', isPlaying: true, time: 0, weight: 1, loop: true },
      { ...base, eventType: 'pause', isPlaying: false, time: 0.5, weight: 1, loop: true },
      { ...base, eventType: 'resume', isPlaying: true, time: 0.5, weight: 1, loop: true },
      { ...base, eventType: 'stop', isPlaying: false, time: 0, weight: 1, loop: true },
      { ...base, eventType: 'start', isPlaying: true, time: 0, weight: 0.75, loop: false },
      { ...base, eventType: 'finish', isPlaying: false, time: duration, weight: 0.75, loop: false },
    ]);
    for (const e of events) expect(Object.keys(e).sort()).toEqual(['animationName', 'duration', 'eventType', 'isPlaying', 'loop', 'modelId', 'time', 'weight']);
  });

  it('stop reaching a listener after it unsubscribes', async () => {
    const { world, record } = await load(BOX);
    const seen: string[] = [];
    const off = onAnimationEvent(world, (e) => seen.push(e.eventType));
    playAnimation(world, record, 0);
    off();
    stopAnimation(world, record, 0);
    expect(seen).toEqual(['start']);
  });

  it('come from each model separately', async () => {
    const a = await load(BOX, 'a');
    // A second model in the same world.
    const glb = readGlb(BOX);
    const gltf = await parse(packed(glb));
    const b = spawnModel(a.world, gltf, { modelId: 'b', name: 'second' });
    attachAnimationEvents(a.world, b);
    playAnimation(a.world, a.record, 0, { loop: false });
    playAnimation(a.world, b, 0);
    steps(a.world, 0.5, 9);
    expect(AnimationState.playing[a.record.eid]).toBe(0);
    expect(AnimationState.playing[b.eid]).toBe(1);
    const finished = a.events.filter((e) => e.eventType === 'finish').map((e) => e.modelId);
    const looped = a.events.filter((e) => e.eventType === 'loop').map((e) => e.modelId);
    expect(finished).toEqual(['a']);
    expect(looped).toEqual(['b']);
  });
});

describe('a model without animations', () => {
  it('lists none and refuses to play', async () => {
    const glb = readGlb('SimpleInstancing.glb');
    const gltf = await parse(packed(glb));
    const world = createViewerWorld();
    const record = spawnModel(world, gltf, { modelId: 'x', name: 'SimpleInstancing.glb' });
    expect(listAnimations(record)).toEqual([]);
    expect(() => playAnimation(world, record, 0)).toThrow('has no animation "0"');
    const objects: Object3D[] = [];
    record.root.traverse((o) => objects.push(o));
    expect(objects.length).toBe(record.entities.length);
  });
});

describe('seekAnimation', () => {
  it('shows a stopped animation paused at the scrubbed time, and keeps a running one running from there', async () => {
    const { world, record, glb, events } = await load(BOX);
    const translation = channel(glb, 0, 1);
    const eid = nodeEid(record, translation.node);
    seekAnimation(world, record, 0, 0.6);
    step(world, 0.01);
    expectClose(position(eid), translation.at(0.6));
    expect(events.at(-1)).toMatchObject({ eventType: 'pause', isPlaying: false });
    expect(AnimationState.playing[record.eid]).toBe(0);
    steps(world, 0.25, 3);
    expectClose(position(eid), translation.at(0.6));
    seekAnimation(world, record, 0, 99);
    step(world, 0.01);
    expectClose(position(eid), translation.at(findAnimation(record, 0).clip.duration));

    playAnimation(world, record, 0);
    steps(world, 0.25, 1);
    seekAnimation(world, record, 0, 0.2);
    expect(AnimationState.playing[record.eid]).toBe(1);
    step(world, 0.25);
    expectClose(position(eid), translation.at(0.45));
    expect(() => seekAnimation(world, record, 0, Number.NaN)).toThrow('seconds');
  });
});
