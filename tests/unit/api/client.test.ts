import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ViewerApiError, ViewerClient } from '../../../src/api/client';

const VIEWER = 'https://viewer.example';

/** The host page's window and the viewer iframe's window, in Node. */
function setup(src = `${VIEWER}/embed/s1?instanceId=left`) {
  const listeners = new Set<(event: MessageEvent) => void>();
  const sent: { message: any; origin: string }[] = [];
  const contentWindow = { postMessage: (message: unknown, origin: string) => void sent.push({ message, origin }) };
  vi.stubGlobal('window', {
    location: { href: 'https://host.example/page' },
    addEventListener: (_t: string, l: (e: MessageEvent) => void) => void listeners.add(l),
    removeEventListener: (_t: string, l: (e: MessageEvent) => void) => void listeners.delete(l),
  });
  const iframe = { src, contentWindow } as unknown as HTMLIFrameElement;
  const receive = (data: unknown, origin = VIEWER, source: unknown = contentWindow) => listeners.forEach((l) => l({ data, origin, source } as MessageEvent));
  return { iframe, sent, receive, listeners };
}

describe('ViewerClient', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('sends api.init to the viewer origin until answered, and is ready after viewerready', async () => {
    const { iframe, sent, receive } = setup();
    const client = new ViewerClient(iframe);
    let info: any = null;
    void client.ready().then((i) => (info = i));
    expect(sent[0]).toEqual({ message: { type: 'api.init', instanceId: 'left' }, origin: VIEWER });
    await vi.advanceTimersByTimeAsync(600);
    expect(sent.length).toBeGreaterThan(1);
    receive({ type: 'api.init.result', instanceId: 'left', version: '1', functions: ['getCamera'], readOnly: [], mayChange: true, ready: false });
    const count = sent.length;
    await vi.advanceTimersByTimeAsync(600);
    expect(sent.length).toBe(count);
    expect(info).toBeNull();
    receive({ type: 'viewerready', instanceId: 'left', sceneId: 's1' });
    await vi.advanceTimersByTimeAsync(0);
    expect(info).toMatchObject({ mayChange: true });
  });

  it('follows a viewer that started again with a new instance id: init again, calls answered', async () => {
    const { iframe, sent, receive } = setup(`${VIEWER}/embed/s1`);
    const client = new ViewerClient(iframe);
    void client.ready();
    receive({ type: 'api.init.result', instanceId: 'gen-1', version: '1', functions: ['getCamera'], readOnly: [], mayChange: true, ready: true });
    await vi.advanceTimersByTimeAsync(0);
    // The iframe reloads: a new viewer, a new generated id.
    sent.length = 0;
    receive({ type: 'viewerinit', instanceId: 'gen-2', sceneId: 's1' });
    expect(sent.map((s) => s.message)).toEqual([{ type: 'api.init' }]);
    receive({ type: 'api.init.result', instanceId: 'gen-2', version: '1', functions: ['getCamera'], readOnly: [], mayChange: true, ready: true });
    const camera = client.api.getCamera();
    const request = sent[sent.length - 1].message;
    expect(request).toMatchObject({ func: 'getCamera', instanceId: 'gen-2' });
    receive({ type: 'api.response', instanceId: 'gen-2', requestId: request.requestId, response: { fov: 45 } });
    await expect(camera).resolves.toEqual({ fov: 45 });
  });

  it('keeps the instance id it chose when the viewer starts again', () => {
    const { iframe, sent, receive } = setup();
    const client = new ViewerClient(iframe);
    void client.ready();
    receive({ type: 'api.init.result', instanceId: 'left', version: '1', functions: [], readOnly: [], mayChange: false, ready: true });
    sent.length = 0;
    receive({ type: 'viewerinit', instanceId: 'left', sceneId: 's1' });
    expect(sent.map((s) => s.message)).toEqual([{ type: 'api.init', instanceId: 'left' }]);
    expect(client.info).toBeNull();
  });

  it("rejects ready() with a refusal, which names no instance", async () => {
    const { iframe, receive } = setup();
    const ready = new ViewerClient(iframe).ready();
    receive({ type: 'api.init.result', instanceId: '', version: '1', functions: [], readOnly: [], mayChange: false, ready: false, error: "The page at x may not use this viewer's API" });
    await expect(ready).rejects.toThrow("may not use this viewer's API");
  });

  it('rejects ready() with the viewer error', async () => {
    const { iframe, receive } = setup();
    const ready = new ViewerClient(iframe).ready();
    receive({ type: 'api.init.result', instanceId: 'left', version: '1', functions: [], readOnly: [], mayChange: false, ready: false, error: 'The page at x may not use it' });
    await expect(ready).rejects.toThrow('The page at x may not use it');
  });

  it('resolves and rejects calls by requestId, typed through api', async () => {
    const { iframe, sent, receive } = setup();
    const client = new ViewerClient(iframe);
    const camera = client.api.getCamera();
    const bad = client.api.setObjectScale({ modelId: 'm', nodeId: 'n', scale: [0, 1, 1] });
    const [first, second] = sent.map((s) => s.message);
    expect(first).toEqual({ type: 'api.request', requestId: 'r1', func: 'getCamera', arguments: {}, instanceId: 'left' });
    receive({ type: 'api.response', instanceId: 'left', requestId: second.requestId, error: 'scale must not have a 0 component' });
    receive({ type: 'api.response', instanceId: 'left', requestId: first.requestId, response: { fov: 45 } });
    await expect(camera).resolves.toEqual({ fov: 45 });
    await expect(bad).rejects.toBeInstanceOf(ViewerApiError);
  });

  it('has a typed method for every function, the texture, measurement and section plane ones too', async () => {
    const { iframe, sent, receive } = setup();
    const client = new ViewerClient(iframe);
    const plane = client.api.createSectionPlane({ point: [0, 1, 0], normal: [0, 1, 0] });
    const measured = client.api.createMeasurement({ kind: 'length', points: [[0, 0, 0], [1, 0, 0]] });
    const textures = client.api.listTextures();
    client.api.removeTexture({ textureId: 'api-texture-1' }).catch(() => {});
    expect(sent.map((s) => [s.message.func, s.message.arguments])).toEqual([
      ['createSectionPlane', { point: [0, 1, 0], normal: [0, 1, 0] }],
      ['createMeasurement', { kind: 'length', points: [[0, 0, 0], [1, 0, 0]] }],
      ['listTextures', {}],
      ['removeTexture', { textureId: 'api-texture-1' }],
    ]);
    receive({ type: 'api.response', instanceId: 'left', requestId: sent[0].message.requestId, response: { id: 7, normal: [0, 1, 0], constant: -1 } });
    receive({ type: 'api.response', instanceId: 'left', requestId: sent[1].message.requestId, response: { id: 8, kind: 'length', value: 1, label: '1.00 m', points: [] } });
    receive({ type: 'api.response', instanceId: 'left', requestId: sent[2].message.requestId, response: [] });
    // The results' types come from the schemas: these compile only if they do.
    const p: { id: number; constant: number } = await plane;
    const m: { value: number; kind: 'length' | 'area' | 'angle' } = await measured;
    const t: { textureId: string; usedBy: unknown[] }[] = await textures;
    expect([p.id, m.value, t.length]).toEqual([7, 1, 0]);
    // @ts-expect-error: a section plane needs its normal.
    void client.api.createSectionPlane({ point: [0, 0, 0] }).catch(() => {});
    client.dispose();
  });

  it('ignores messages of other windows, origins and instances', async () => {
    const { iframe, sent, receive } = setup();
    const client = new ViewerClient(iframe, { timeoutMs: 1000 });
    const events: string[] = [];
    client.on('*', (_d, e) => events.push(e));
    const call = client.call('getCamera');
    const answer = { type: 'api.response', instanceId: 'left', requestId: sent[0].message.requestId, response: 1 };
    receive(answer, 'https://evil.example');
    receive(answer, VIEWER, { postMessage() {} });
    receive({ ...answer, instanceId: 'right' });
    receive({ type: 'api.event', instanceId: 'right', event: 'raycast', data: {} });
    receive({ type: 'api.event', instanceId: 'left', event: 'raycast', data: {} });
    expect(events).toEqual(['raycast']);
    const settled = expect(call).rejects.toThrow('getCamera got no answer within 1000 ms.');
    await vi.advanceTimersByTimeAsync(1001);
    await settled;
  });

  it('delivers events to their listeners and "*", survives a throwing listener, unsubscribes', () => {
    const { iframe, receive } = setup();
    const client = new ViewerClient(iframe);
    const hits: unknown[] = [];
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    client.on('raycast', () => {
      throw new Error('listener bug');
    });
    const off = client.on('raycast', (hit) => hits.push(hit));
    receive({ type: 'api.event', instanceId: 'left', event: 'raycast', data: { nodeName: 'a' } });
    off();
    receive({ type: 'api.event', instanceId: 'left', event: 'raycast', data: { nodeName: 'b' } });
    expect(hits).toEqual([{ nodeName: 'a' }]);
    expect(error).toHaveBeenCalled();
  });

  it('rejects pending calls on dispose and stops listening', async () => {
    const { iframe, listeners } = setup();
    const client = new ViewerClient(iframe);
    const pending = client.call('listModels');
    client.dispose();
    await expect(pending).rejects.toThrow('The client was disposed.');
    expect(listeners.size).toBe(0);
  });
});
