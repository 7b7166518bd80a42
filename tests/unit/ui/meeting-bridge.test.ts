import { describe, expect, it, vi } from 'vitest';
import type { ClientConfig } from '../../../src/protocol/config';
import { guestToken } from '../../../src/ui/meeting-bridge';

const config = { endpoints: { account: 'https://accounts.example/' } } as unknown as ClientConfig;

describe('a guest token for a public meeting', () => {
  it('POSTs the names to the account service and returns the token', async () => {
    const fetch = vi.fn(
      async (_url: string, _init: RequestInit) => new Response(JSON.stringify({ token: 'G', expires_in: 3600, user: { id: 'guest-1' } }), { status: 200 }),
    );
    expect(await guestToken(config, 'my scene', 'Ada', 'L', fetch as unknown as typeof globalThis.fetch)).toBe('G');
    expect(fetch.mock.calls[0]![0]).toBe('https://accounts.example/v1/meetings/my%20scene/guests');
    expect(fetch.mock.calls[0]![1]).toMatchObject({ method: 'POST', body: '{"firstName":"Ada","lastName":"L"}' });
    expect((fetch.mock.calls[0]![1].headers as Record<string, string>).authorization).toBeUndefined();
  });

  it("gives the service's reason, the status when there is none, and tries a failed POST once", async () => {
    const refused = vi.fn(async () => new Response(JSON.stringify({ error: "Scene 's' is private: guests may not join its meeting" }), { status: 403 }));
    await expect(guestToken(config, 's', 'A', 'B', refused as unknown as typeof fetch)).rejects.toThrow(
      "Scene 's' is private: guests may not join its meeting",
    );
    const empty = vi.fn(async () => new Response(JSON.stringify({}), { status: 200 }));
    await expect(guestToken(config, 's', 'A', 'B', empty as unknown as typeof fetch)).rejects.toThrow('Joining as a guest failed (200).');
    const offline = vi.fn(async () => Promise.reject(new TypeError('Failed to fetch')));
    await expect(guestToken(config, 's', 'A', 'B', offline as unknown as typeof fetch)).rejects.toThrow(
      'The model service could not be reached (Failed to fetch).',
    );
    expect(offline).toHaveBeenCalledTimes(1);
  });
});
