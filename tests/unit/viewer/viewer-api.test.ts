import { describe, expect, it, vi } from 'vitest';

// The pins' DOM layer is a browser matter (the browser test checks it): a stand-in here.
vi.mock('../../../src/viewer/tools/labels', () => import('../../support/label-layer'));

import { drainMessages } from '../../../src/engine/messages';
import { HOST_FUNCTIONS } from '../../../src/protocol/host-api';
import { IMMEDIATE } from '../../../src/viewer/viewer-api';
import { setup } from '../support/viewer-api';

describe('viewer API', () => {
  it('answers reads at once and queues changes for the frame, keeping their order', async () => {
    const { world, va, speed } = setup();
    const camera = await va.execute('getCamera', {});
    expect(camera).toMatchObject({ position: [1, 2, 3], target: [0, 0, 0], fov: 45, mode: 'Orbit' });
    const change = va.execute('setAnimationSpeed', { speed: 3 });
    // A read behind a queued change waits for it too.
    let read: unknown = null;
    void va.execute('getCamera', {}).then((r) => (read = r));
    await Promise.resolve();
    expect(speed()).toBe(1);
    expect(read).toBeNull();
    expect(world.messages.queue).toHaveLength(2);
    drainMessages(world);
    await expect(change).resolves.toEqual({ speed: 3 });
    await Promise.resolve();
    expect(read).not.toBeNull();
  });

  it('answers a failing function with its error', async () => {
    const { world, va } = setup();
    const failing = va.execute('setModelVisibility', { modelId: 'nope', visible: false });
    drainMessages(world);
    await expect(failing).rejects.toThrow("There is no loaded model 'nope'.");
    await expect(va.execute('getNode', { modelId: 'nope', nodeId: '1' })).rejects.toThrow("There is no loaded model 'nope'.");
  });

  it('never answers pictures or changes without the frame', () => {
    for (const name of IMMEDIATE) expect(HOST_FUNCTIONS[name].access).toBe('read');
    expect(IMMEDIATE.has('screenshot')).toBe(false);
    expect(IMMEDIATE.has('renderOffscreenFrame')).toBe(false);
    expect(IMMEDIATE.has('getCamera')).toBe(true);
  });

  it('forwards the viewer events as the API events', () => {
    const { events, emitted } = setup();
    events.emit('hit', { point: { x: 1, y: 2, z: 3 }, normal: { x: 0, y: 1, z: 0 }, modelId: 'm', nodeId: '4', nodeName: 'Valve', materialId: '0', materialName: 'Steel', instanceId: null, groupId: null });
    events.emit('background-hit', { clientX: 10, clientY: 20 });
    expect(emitted.map((e) => e.event)).toEqual(['raycast', 'selection', 'background.click', 'selection']);
    expect(emitted[0].data).toMatchObject({ position: [1, 2, 3], normal: [0, 1, 0], nodeName: 'Valve', material: 'Steel' });
    expect(emitted[3].data).toEqual({ modelId: null, nodeId: null });
  });

  it("setAuthToken hands the token to the viewer's keeper and answers with what it says; without one it refuses", async () => {
    const set = vi.fn(async (token: string | null) => ({ signedIn: token !== null, firstName: token ? 'Hana' : null, lastName: token ? 'Host' : null, expiresAt: null }));
    const { world, va } = setup({ auth: { set } });
    const answer = va.execute('setAuthToken', { token: 'a.b.c' });
    drainMessages(world);
    await expect(answer).resolves.toEqual({ signedIn: true, firstName: 'Hana', lastName: 'Host', expiresAt: null });
    expect(set).toHaveBeenCalledWith('a.b.c');
    const none = setup();
    const refused = none.va.execute('setAuthToken', { token: 'a.b.c' });
    drainMessages(none.world);
    await expect(refused).rejects.toThrow('This viewer saves nothing as a person');
  });

  it('removes its frame steps and message handler on dispose', () => {
    const { world, va } = setup();
    expect(world.steps.overlays.length).toBe(1);
    va.dispose();
    expect(world.steps.overlays.length).toBe(0);
    expect(world.steps.helpers.length).toBe(0);
    expect(world.messages.handlers.size).toBe(0);
  });
});
