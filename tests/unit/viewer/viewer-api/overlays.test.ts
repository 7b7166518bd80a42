import { describe, expect, it, vi } from 'vitest';

// The pins' DOM layer is a browser matter (the browser test checks it): a stand-in here.
vi.mock('../../../../src/viewer/tools/labels', () => import('../../../support/label-layer'));

import { drainMessages } from '../../../../src/engine/messages';
import { runFrameSteps } from '../../../../src/engine/frame-steps';
import { CAMERA_STOP_FRAMES, MAX_HOTSPOTS } from '../../../../src/viewer/viewer-api/overlays';
import { setup } from '../../support/viewer-api';

describe('viewer API: overlays (hotspots, camera start/stop, annotations)', () => {
  it('sends camerastart when the camera moves and camerastop after it rests, from the overlays step', () => {
    const { world, emitted } = setup();
    world.camera.moved = true;
    runFrameSteps(world, 'overlays');
    runFrameSteps(world, 'overlays');
    expect(emitted.map((e) => e.event)).toEqual(['camerastart']);
    world.camera.moved = false;
    for (let i = 0; i < CAMERA_STOP_FRAMES; i++) runFrameSteps(world, 'overlays');
    expect(emitted.map((e) => e.event)).toEqual(['camerastart', 'camerastop']);
  });

  it('refuses hotspots past the limit without registering any of them', async () => {
    const { world, va } = setup();
    const call = (points: { id: string; position: [number, number, number] }[]) => {
      const running = va.execute('registerHotspots', { points });
      drainMessages(world);
      return running;
    };
    const points = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: `p${from + i}`, position: [i, 0, 0] as [number, number, number] }));
    await expect(call(points(0, MAX_HOTSPOTS))).resolves.toEqual({ count: MAX_HOTSPOTS });
    await expect(call(points(MAX_HOTSPOTS - 1, 3))).rejects.toThrow(/At most 1000 hotspots/);
    // Moving registered ones is still fine, and the refused call added nothing.
    await expect(call(points(0, 2))).resolves.toEqual({ count: MAX_HOTSPOTS });
  });

  it('gets one annotation by id', async () => {
    const { run } = setup();
    const made = await run('createAnnotation', { position: [1, 2, 3], title: 'Valve', eye: [5, 5, 5], target: [0, 0, 0] });
    expect(await run('getAnnotation', { id: made.id })).toEqual(made);
    await expect(run('getAnnotation', { id: 'nope' })).rejects.toThrow("There is no annotation 'nope'.");
  });

  it('goes to an annotation through the navigation and answers the pose it asked for', async () => {
    const { run, lookAts } = setup();
    // Made from the present view when no eye and target are given.
    const made = await run('createAnnotation', { position: [0, 0, 0], title: 'Here' });
    expect(made).toMatchObject({ eye: [1, 2, 3], target: [0, 0, 0] });
    const other = await run('createAnnotation', { position: [1, 1, 1], title: 'There', eye: [7, 0, 0], target: [1, 1, 1] });
    const camera = await run('gotoAnnotation', { id: other.id, transition: false });
    expect(lookAts).toEqual([{ position: [7, 0, 0], target: [1, 1, 1], transition: false }]);
    expect(camera).toMatchObject({ position: [7, 0, 0], target: [1, 1, 1] });
  });
});
