import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatBytes, sendUpload } from '../../../src/ui/upload';

/** A stand-in XMLHttpRequest that records what is sent and answers as told. */
class FakeXhr {
  static last: FakeXhr;
  static answer = { status: 201, body: { ok: true } as unknown };
  headers: Record<string, string> = {};
  method = '';
  url = '';
  sent: unknown;
  status = 0;
  response: unknown;
  responseType = '';
  upload: { onprogress?: (e: { loaded: number; total: number; lengthComputable: boolean }) => void; onload?: () => void } = {};
  onload?: () => void;
  onerror?: () => void;
  onabort?: () => void;
  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  send(body: unknown) {
    this.sent = body;
    queueMicrotask(() => {
      this.upload.onprogress?.({ loaded: 5, total: 10, lengthComputable: true });
      this.upload.onload?.();
      this.status = FakeXhr.answer.status;
      this.response = FakeXhr.answer.body;
      if (this.status === 0) this.onerror?.();
      else this.onload?.();
    });
  }
}

describe('the shared upload client', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('sends one .glb as the raw body with its name, several files as multipart with the model first', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    const progress: number[][] = [];
    let sent = false;
    const glb = new File([new Uint8Array(10)], 'Tree ä.glb');
    const answer = await sendUpload('/v1/assets', [glb], 'TOKEN', (l, t) => progress.push([l, t]), () => (sent = true));
    expect(answer).toEqual({ status: 201, body: { ok: true } });
    expect(FakeXhr.last).toMatchObject({ method: 'POST', url: '/v1/assets', headers: { authorization: 'Bearer TOKEN', 'content-type': 'model/gltf-binary', 'x-file-name': 'Tree%20%C3%A4.glb' } });
    expect(FakeXhr.last.sent).toBe(glb);
    expect({ progress, sent }).toEqual({ progress: [[5, 10]], sent: true });

    await sendUpload('/v1/models', [new File(['x'], 'scene.bin'), new File(['{}'], 'scene.gltf')], 'T', () => undefined, () => undefined);
    const form = FakeXhr.last.sent as FormData;
    expect(form.getAll('file').map((f) => (f as File).name)).toEqual(['scene.gltf', 'scene.bin']);
  });

  it('rejects with a clear message when the server cannot be reached', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    FakeXhr.answer = { status: 0, body: null };
    await expect(sendUpload('/v1/assets', [new File(['x'], 'a.glb')], 'T', () => undefined, () => undefined)).rejects.toThrow('The upload failed: the server could not be reached.');
    FakeXhr.answer = { status: 201, body: { ok: true } };
  });

  it('formats sizes', () => {
    expect([formatBytes(512), formatBytes(2048), formatBytes(5 * 1024 * 1024)]).toEqual(['512 B', '2.0 KB', '5.0 MB']);
  });
});
