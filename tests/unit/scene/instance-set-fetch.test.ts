import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeInstanceSet, INSTANCE_SET_MIME } from '../../../src/protocol/instance-set';
import { fetchInstanceSet } from '../../../src/scene/instance-set-fetch';

afterEach(() => vi.unstubAllGlobals());

describe('fetchInstanceSet', () => {
  it('asks with the given Accept type and decodes the answer', async () => {
    const bytes = encodeInstanceSet({ ids: new Uint32Array([3]), matrices: new Float32Array(12).fill(1), nextId: 4, revision: 2 });
    const fetchMock = vi.fn(async (_url: string, _init?: RequestInit) => new Response(bytes.slice(), { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
    const set = await fetchInstanceSet('http://ms.test/s', INSTANCE_SET_MIME);
    expect([...set.ids]).toEqual([3]);
    expect(set.revision).toBe(2);
    expect(new Headers(fetchMock.mock.calls[0]![1]!.headers).get('Accept')).toBe(INSTANCE_SET_MIME);
  });

  it('names the URL and status of an answer that is not OK, and the reason a set does not decode', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('', { status: 500, statusText: 'Internal Server Error' })));
    await expect(fetchInstanceSet('http://ms.test/s', INSTANCE_SET_MIME)).rejects.toThrow('http://ms.test/s answered 500 Internal Server Error.');
    vi.stubGlobal('fetch', vi.fn(async () => new Response(new Uint8Array(8), { status: 200 })));
    await expect(fetchInstanceSet('http://ms.test/s', INSTANCE_SET_MIME)).rejects.toThrow(/shorter than its header/);
  });
});
