import { readFileSync } from 'node:fs';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { describe, expect, it } from 'vitest';
import { createViewerWorld, type AnimationEvent, type ViewerWorld } from '../../../src/engine/world';
import { spawnModel } from '../../../src/scene/model-entities';
import { attachAnimationEvents } from '../../../src/viewer/animation';
import { createAnimationControl } from '../../../src/viewer/animation-control';
import { Emitter, type ViewerEventMap } from '../../../src/viewer/events';
import { animationMixerSystem } from '../../../systems/animationMixerSystem';

const BOX = new URL('../../../../shared/models/BoxAnimated.glb', import.meta.url);

async function viewerWithBox(): Promise<{ world: ViewerWorld; events: Emitter<ViewerEventMap> }> {
  const bytes = readFileSync(BOX);
  const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const gltf = await new Promise<GLTF>((resolve, reject) => new GLTFLoader().parse(data, '', resolve, reject));
  const world = createViewerWorld();
  const record = spawnModel(world, gltf, { modelId: 'box', name: 'BoxAnimated.glb' });
  attachAnimationEvents(world, record);
  return { world, events: new Emitter<ViewerEventMap>() };
}

function advance(world: ViewerWorld, seconds: number): void {
  world.time.delta = seconds;
  animationMixerSystem(world);
}

describe('the viewer.animations interface', () => {
  it('lists every animation of every model, stopped and looping until played', async () => {
    const { world, events } = await viewerWithBox();
    const rows = createAnimationControl(world, events).list();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]).toMatchObject({ modelId: 'box', modelName: 'BoxAnimated.glb', id: '0', status: 'stopped', time: 0, loop: true });
    expect(rows[0].duration).toBeGreaterThan(0);
  });

  it("play, pause, resume and stop change the row's status, each told as an 'animation' event", async () => {
    const { world, events } = await viewerWithBox();
    const animations = createAnimationControl(world, events);
    const told: AnimationEvent['eventType'][] = [];
    events.on('animation', (e) => told.push(e.eventType));
    animations.play('box', '0');
    advance(world, 0.25);
    expect(animations.list()[0].status).toBe('playing');
    expect(animations.list()[0].time).toBeCloseTo(0.25, 5);
    animations.pause('box', '0');
    expect(animations.list()[0].status).toBe('paused');
    animations.resume('box', '0');
    expect(animations.list()[0].status).toBe('playing');
    animations.stop('box', '0');
    expect(animations.list()[0].status).toBe('stopped');
    expect(told).toEqual(['start', 'pause', 'resume', 'stop']);
  });

  it("a play-once animation that reached its end is 'finished' and holds its last frame", async () => {
    const { world, events } = await viewerWithBox();
    const animations = createAnimationControl(world, events);
    animations.play('box', '0', { loop: false });
    const duration = animations.list()[0].duration;
    advance(world, duration + 1);
    const row = animations.list()[0];
    expect(row.loop).toBe(false);
    expect(row.status).toBe('finished');
  });

  it('the speed scales every mixer and is at least 0.1', async () => {
    const { world, events } = await viewerWithBox();
    const animations = createAnimationControl(world, events);
    expect(animations.setSpeed(2)).toBe(2);
    expect(animations.speed).toBe(2);
    animations.play('box', '0');
    advance(world, 0.1);
    expect(animations.list()[0].time).toBeCloseTo(0.2, 5);
    expect(animations.setSpeed(0)).toBe(0.1);
  });

  it('an unknown model or animation is refused by name; after dispose no event goes out', async () => {
    const { world, events } = await viewerWithBox();
    const animations = createAnimationControl(world, events);
    expect(() => animations.play('nope', '0')).toThrow("There is no loaded model 'nope'.");
    expect(() => animations.play('box', 'Dance')).toThrow('Model "BoxAnimated.glb" has no animation "Dance".');
    let told = 0;
    events.on('animation', () => told++);
    animations.dispose();
    animations.play('box', '0');
    expect(told).toBe(0);
  });
});
