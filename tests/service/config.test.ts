import { rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientConfig } from '../../src/protocol/config.ts';
import { availableParallelism } from 'node:os';
import { ConfigError, clientConfig, identityNotice, loadServerConfig, publicOrigin } from '../../src/server/config.ts';
import { startServer, tempDir, type TestServer } from './helpers.ts';

describe('loadServerConfig', () => {
  it('defaults to one server on port 8080 with relative endpoints', () => {
    const config = loadServerConfig({});
    expect(config.port).toBe(8080);
    // This machine only: the development identity provider lets anyone sign in as anyone.
    expect(config.host).toBe('localhost');
    expect(config.dataDir).toBe(resolve('data'));
    expect(config.distDir).toBe(resolve('dist'));
    expect(config.publicUrl).toBeUndefined();
    // What a 2-core server with 2 GiB survives: about ten times the file in memory, one upload per worker.
    expect(config.maxAssetBytes).toBe(64 * 1024 * 1024);
    expect(config.uploads).toEqual({ workers: Math.max(1, availableParallelism() - 1), maxQueued: 32, timeoutMs: 300_000, heapMb: 512 });
    expect(config.endpoints).toEqual({
      account: '',
      meetings: '/meetings',
      publicMeetings: '/public-meetings',
      modelService: '',
      modelDerivative: '',
      modelDerivativeCdn: '/cdn/derivatives',
      assetCdn: '/cdn',
    });
    expect(config.identityProvider).toMatchObject({ domain: '', callbackUrl: '/auth/callback', audience: 'parametricos' });
    expect(publicOrigin(config)).toBe('http://localhost:8080');
  });

  it('says at start-up, in one line, that the development identity provider is on, and warns when other machines reach it', () => {
    expect(identityNotice(loadServerConfig({}))).toBe(
      'Sign-in: the development identity provider (anyone can sign in as anyone; this machine only, HOST=localhost); set IDP_DOMAIN for a real one',
    );
    expect(identityNotice(loadServerConfig({ HOST: '127.0.0.1' }))).toMatch(/^Sign-in: the development identity provider .*this machine only, HOST=127\.0\.0\.1/);
    for (const host of ['0.0.0.0', '192.168.1.20', '::']) {
      expect(identityNotice(loadServerConfig({ HOST: host }))).toBe(
        `WARNING: the development sign-in is on (anyone can sign in as anyone) and HOST=${host} makes it reachable from other machines: set IDP_DOMAIN to use a real identity provider`,
      );
    }
    expect(identityNotice(loadServerConfig({ IDP_DOMAIN: 'login.example.com', HOST: '0.0.0.0' }))).toBeUndefined();
  });

  it('reads every variable from the environment', () => {
    const config = loadServerConfig({
      PORT: '9001',
      HOST: '127.0.0.1',
      DATA_DIR: '/srv/data',
      DIST_DIR: 'build/app',
      PUBLIC_URL: 'https://viewer.example.com/',
      MAX_ASSET_BYTES: '1000',
      UPLOAD_WORKERS: '3',
      UPLOAD_QUEUE: '7',
      UPLOAD_TIMEOUT_S: '60',
      UPLOAD_HEAP_MB: '256',
      ACCOUNT_URL: 'https://account.example.com',
      MEETINGS_URL: 'wss://meet.example.com/ws',
      PUBLIC_MEETINGS_URL: 'wss://public.example.com/ws/',
      MODEL_SERVICE_URL: 'https://models.example.com',
      MODEL_DERIVATIVE_URL: 'https://derivative.example.com',
      MODEL_DERIVATIVE_CDN_URL: 'https://cdn.example.com/derivatives/',
      ASSET_CDN_URL: 'https://cdn.example.com/assets',
      IDP_DOMAIN: 'login.example.com',
      IDP_CLIENT_ID: 'abc123',
      IDP_CALLBACK_URL: 'https://meet.example.com/auth/callback',
    });
    expect(config.uploads).toEqual({ workers: 3, maxQueued: 7, timeoutMs: 60_000, heapMb: 256 });
    expect(config).toMatchObject({
      port: 9001,
      host: '127.0.0.1',
      dataDir: '/srv/data',
      distDir: resolve('build/app'),
      publicUrl: 'https://viewer.example.com',
      maxAssetBytes: 1000,
      endpoints: {
        account: 'https://account.example.com',
        meetings: 'wss://meet.example.com/ws',
        publicMeetings: 'wss://public.example.com/ws',
        modelService: 'https://models.example.com',
        modelDerivative: 'https://derivative.example.com',
        modelDerivativeCdn: 'https://cdn.example.com/derivatives',
        assetCdn: 'https://cdn.example.com/assets',
      },
      identityProvider: { domain: 'login.example.com', clientId: 'abc123', callbackUrl: 'https://meet.example.com/auth/callback', audience: 'parametricos' },
    });
    expect(publicOrigin(config)).toBe('https://viewer.example.com');
  });

  it('reads the calls\' settings: a mesh only without JANUS_URL, the call server\'s secret never shown, ICE servers for the browsers', () => {
    const plain = loadServerConfig({});
    expect(plain.rtc).toEqual({ meshMax: 4, iceServers: [] });
    expect(clientConfig(plain).rtc).toEqual({ iceServers: [] });

    const ice = [{ urls: 'stun:stun.example.com:3478' }, { urls: ['turn:turn.example.com:3478?transport=udp'], username: 'u', credential: 'turn-password' }];
    const config = loadServerConfig({ JANUS_URL: 'ws://127.0.0.1:8188', JANUS_API_SECRET: 'janus-secret', RTC_MESH_MAX: '0', ICE_SERVERS: JSON.stringify(ice) });
    expect(config.rtc).toEqual({ janusUrl: 'ws://127.0.0.1:8188', janusApiSecret: 'janus-secret', meshMax: 0, iceServers: ice });
    // The browser gets the ICE servers, never Janus's address or secret.
    const client = clientConfig(config);
    expect(client.rtc).toEqual({ iceServers: ice });
    expect(JSON.stringify(client)).not.toMatch(/8188|janus-secret/);

    expect(() => loadServerConfig({ JANUS_URL: 'http://127.0.0.1:8088/janus' })).toThrow(/JANUS_URL must be the Janus API's websockets URL/);
    expect(() => loadServerConfig({ RTC_MESH_MAX: '-1' })).toThrow(/RTC_MESH_MAX must be at least 0/);
    // A bad ICE_SERVERS may hold a TURN password: the message names the problem, not the value.
    const bad = (value: string) => {
      try {
        loadServerConfig({ ICE_SERVERS: value });
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(bad('[{"urls":"turn:x","credential":"p4ss"')).toMatch(/^ICE_SERVERS must be JSON.*\(value hidden\)$/);
    expect(bad('[{"urls":"http://x","credential":"p4ss"}]')).toMatch(/^ICE_SERVERS must start with stun:, stuns:, turn: or turns: \(value hidden\)$/);
    expect(bad('{"urls":"stun:x"}')).toMatch(/^ICE_SERVERS must be a JSON list/);
    expect(() => loadServerConfig({ JANUS_API_SECRET: ' ' })).not.toThrow(); // empty = unset
  });

  it('treats an empty variable as unset', () => {
    expect(loadServerConfig({ PORT: '', MODEL_DERIVATIVE_CDN_URL: '' })).toMatchObject({ port: 8080, endpoints: { modelDerivativeCdn: '/cdn/derivatives' } });
  });

  it.each([
    ['PORT', 'abc', /PORT must be a number/],
    ['PORT', '70000', /PORT must be at most 65535/],
    ['PORT', '80.5', /PORT must be an integer/],
    ['MAX_ASSET_BYTES', '0', /MAX_ASSET_BYTES must be at least 1/],
    ['PUBLIC_URL', 'viewer.example.com', /PUBLIC_URL must be an absolute http\(s\) URL/],
    ['MODEL_DERIVATIVE_CDN_URL', 'ftp://cdn.example.com', /MODEL_DERIVATIVE_CDN_URL must be empty, a path/],
    ['MEETINGS_URL', 'meetings', /MEETINGS_URL must be empty, a path/],
    ['ASSET_CDN_URL', '//cdn.example.com', /ASSET_CDN_URL must be/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL must be one of/],
  ])('rejects %s=%s with an error naming the variable', (name, value, message) => {
    expect(() => loadServerConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadServerConfig({ [name]: value })).toThrow(message);
  });

  describe('CONFIG_FILE', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await tempDir('config-');
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it('reads values from the file; the environment wins; paths resolve against the file', async () => {
      const file = join(dir, 'server.json');
      await writeFile(file, JSON.stringify({ PORT: 9100, DATA_DIR: 'store', MEETINGS_URL: 'wss://file.example.com', IDP_CLIENT_ID: 'from-file' }));
      const config = loadServerConfig({ CONFIG_FILE: file, IDP_CLIENT_ID: 'from-env' });
      expect(config.port).toBe(9100);
      expect(config.dataDir).toBe(join(dir, 'store'));
      expect(config.endpoints.meetings).toBe('wss://file.example.com');
      expect(config.identityProvider.clientId).toBe('from-env');
    });

    it('names the file and the key of a bad value', async () => {
      const file = join(dir, 'bad-port.json');
      await writeFile(file, JSON.stringify({ PORT: 'eighty' }));
      expect(() => loadServerConfig({ CONFIG_FILE: file })).toThrow(`PORT (in ${file}) must be a number`);
    });

    it('rejects unknown keys, invalid JSON and a missing file', async () => {
      const unknown = join(dir, 'unknown.json');
      await writeFile(unknown, JSON.stringify({ PROT: 80 }));
      expect(() => loadServerConfig({ CONFIG_FILE: unknown })).toThrow(/unknown key 'PROT'/);
      const broken = join(dir, 'broken.json');
      await writeFile(broken, '{ "PORT": ');
      expect(() => loadServerConfig({ CONFIG_FILE: broken })).toThrow(/CONFIG_FILE: .* is not valid JSON/);
      expect(() => loadServerConfig({ CONFIG_FILE: join(dir, 'missing.json') })).toThrow(/CONFIG_FILE: cannot read/);
      const array = join(dir, 'array.json');
      await writeFile(array, '[]');
      expect(() => loadServerConfig({ CONFIG_FILE: array })).toThrow(/must hold a JSON object/);
    });
  });
});

describe('GET /v1/config', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ env: { MEETINGS_URL: 'wss://meet.example.com', IDP_DOMAIN: 'login.example.com' } });
  });
  afterAll(() => server.close());

  it('answers the client configuration', async () => {
    const res = await fetch(`${server.url}/v1/config`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.json();
    expect(ClientConfig.parse(body)).toEqual(body);
    expect(body).toEqual(clientConfig(server.config));
    expect(body.endpoints.meetings).toBe('wss://meet.example.com');
    expect(body.endpoints.modelDerivativeCdn).toBe('/cdn/derivatives');
    expect(body.identityProvider).toMatchObject({ domain: 'login.example.com', audience: 'parametricos' });
    // Nothing server-side leaks to the browser.
    expect(JSON.stringify(body)).not.toContain(server.dataDir);
  });
});
