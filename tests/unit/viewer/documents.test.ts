import { afterEach, describe, expect, it, vi } from 'vitest';
import { sceneDocuments } from '../../../src/viewer/documents';

const clientConfig = {
  endpoints: {
    account: '',
    meetings: '/meetings',
    publicMeetings: '/meetings',
    modelService: 'http://models.test/',
    modelDerivative: '',
    modelDerivativeCdn: 'https://cdn.test/derivatives/',
    assetCdn: '/cdn',
  },
  identityProvider: { domain: '', clientId: 'x', callbackUrl: '/auth/callback', audience: 'parametricos' },
};

// A scene download that fails with `status` the first `failScene` times (500: the client does not
// retry it; 503: the client retries it itself).
function server(failScene = 0, status = 500) {
  const urls: string[] = [];
  let sceneFailures = failScene;
  const fetch = vi.fn(async (url: string) => {
    urls.push(url);
    if (url.endsWith('/v1/config')) return Response.json(clientConfig);
    if (sceneFailures > 0) {
      sceneFailures--;
      return Response.json({ error: 'down' }, { status });
    }
    const id = decodeURIComponent(url.split('/').pop()!);
    return Response.json({ _id: id, name: `Scene ${id}`, viewerConfig: {}, models: [] });
  });
  vi.stubGlobal('fetch', fetch);
  return urls;
}

afterEach(() => vi.unstubAllGlobals());

describe('sceneDocuments', () => {
  it('downloads the configuration and the scene once per page, however many ask', async () => {
    const urls = server();
    const [a, b] = await Promise.all([sceneDocuments('once', 'http://app.test'), sceneDocuments('once', 'http://app.test')]);
    const c = await sceneDocuments('once', 'http://app.test');
    expect(a).toBe(b);
    expect(c).toBe(a);
    expect(a.scene.name).toBe('Scene once');
    expect(urls).toEqual(['http://app.test/v1/config', 'http://models.test/v1/scenes/once']);
  });

  it('asks the model service of the configuration for the scene, by its encoded id', async () => {
    const urls = server();
    await sceneDocuments('a b/c', 'http://app.test');
    expect(urls[1]).toBe('http://models.test/v1/scenes/a%20b%2Fc');
  });

  it('forgets a failed download, so that the next call tries again', async () => {
    const urls = server(1);
    await expect(sceneDocuments('flaky', 'http://app.test')).rejects.toThrow(/answered 500: down/);
    const documents = await sceneDocuments('flaky', 'http://app.test');
    expect(documents.scene._id).toBe('flaky');
    expect(urls.filter((u) => u.includes('/scenes/')).length).toBe(2);
  });

  it('rides out a service that is briefly unavailable (503): the client asks again', async () => {
    const urls = server(1, 503);
    const documents = await sceneDocuments('busy', 'http://app.test');
    expect(documents.scene._id).toBe('busy');
    expect(urls.filter((u) => u.includes('/scenes/')).length).toBe(2);
  });
});
