import { describe, expect, it, vi } from 'vitest';
import { listScenes } from '../../../src/ui/Home';

describe("the home page's scene list", () => {
  it('reads GET /v1/scenes of this site with the protocol schema, as a visitor (no token)', async () => {
    const fetch = vi.fn(async (_url: string, _init: RequestInit) => new Response(JSON.stringify({ scenes: [{ id: 's1', name: 'One', modelCount: 2 }] }), { status: 200 }));
    expect(await listScenes(fetch as unknown as typeof globalThis.fetch)).toEqual([{ id: 's1', name: 'One', modelCount: 2 }]);
    expect(fetch.mock.calls[0]![0]).toBe('/v1/scenes');
    expect((fetch.mock.calls[0]![1].headers as Record<string, string>).authorization).toBeUndefined();
  });

  it('says the status of a refusal, and what is wrong with a list it cannot read', async () => {
    const refused = vi.fn(async () => new Response(JSON.stringify({ error: 'down' }), { status: 500 }));
    await expect(listScenes(refused as unknown as typeof fetch)).rejects.toThrow('The scene list request failed: 500.');
    const odd = vi.fn(async () => new Response(JSON.stringify({ scenes: [{ name: 'no id' }] }), { status: 200 }));
    await expect(listScenes(odd as unknown as typeof fetch)).rejects.toThrow(/^The scene list is invalid: scenes\.0\.id/);
  });
});
