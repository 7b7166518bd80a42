import { describe, expect, it } from 'vitest';
import { uploadTexture, type SendUpload, type TextureUploadOptions } from '../../../src/editor/texture-upload';
import { createViewerWorld } from '../../../src/engine/world';
import { MAX_TEXTURE_BYTES } from '../../../src/protocol/textures';
import { createServiceClient } from '../../../src/service/client';
import { spawnTestModel } from '../../support/test-model';

/** The texture upload (src/editor/texture-upload.ts) with a fake decoder and a fake sender: what is sent, and each refusal's sentence. */

const ID = 'u-0123456789abcdef01234567';

function upload(answer: { status: number; text: string } | Error, overrides: Partial<TextureUploadOptions> = {}) {
  const record = spawnTestModel(createViewerWorld(), [{ name: 'Base', mesh: true }]);
  const sent: { url: string; headers: Record<string, string>; size: number }[] = [];
  const sendUpload: SendUpload = async (url, body, headers, onProgress) => {
    sent.push({ url, headers, size: body.size });
    onProgress?.(0.5);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  const options: TextureUploadOptions = {
    service: createServiceClient({ baseUrl: 'http://models.test/', token: () => 'token' }),
    getToken: async () => 'token',
    sendUpload,
    decodeImage: async () => ({ width: 1, height: 1 }) as unknown as HTMLCanvasElement,
    ...overrides,
  };
  const run = (file: Blob, onProgress?: (f: number) => void) => uploadTexture(options, record, 'm 1', file, onProgress);
  return { record, sent, run };
}

const png = (size = 4) => new Blob([new Uint8Array(size)], { type: 'image/png' });

describe('texture upload (src/editor/texture-upload.ts)', () => {
  it('sends the image with its type and the token, reports progress, and registers the answered texture', async () => {
    const { record, sent, run } = upload({ status: 201, text: JSON.stringify({ textureId: ID, url: 'x' }) });
    const progress: number[] = [];
    await expect(run(png(), (f) => progress.push(f))).resolves.toBe(ID);
    expect(sent).toEqual([
      { url: 'http://models.test/v1/models/m%201/textures', headers: { 'content-type': 'image/png', authorization: 'Bearer token' }, size: 4 },
    ]);
    expect(progress).toEqual([0.5]);
    expect(record.textures.get(ID)?.userData.uploadedTextureId).toBe(ID);
  });

  it('refuses another type, a file over 16 MB, an image that does not decode, or no sign-in, before sending', async () => {
    const { sent, run } = upload({ status: 201, text: '' });
    await expect(run(new Blob(['x'], { type: 'image/gif' }))).rejects.toThrow("A texture must be a PNG, JPEG or WebP image, not 'image/gif'.");
    await expect(run(new Blob(['x']))).rejects.toThrow('not a file of unknown type');
    await expect(run(png(MAX_TEXTURE_BYTES + 1))).rejects.toThrow('a texture may be at most 16 MB');
    const broken = upload({ status: 201, text: '' }, { decodeImage: async () => Promise.reject(new Error('bad header')) });
    await expect(broken.run(png())).rejects.toThrow('The image could not be decoded (bad header); it was not uploaded.');
    const signedOut = upload({ status: 201, text: '' }, { getToken: async () => Promise.reject(new Error('no session')) });
    await expect(signedOut.run(png())).rejects.toThrow('Sign in to upload textures (no session).');
    expect([...sent, ...broken.sent, ...signedOut.sent]).toEqual([]);
  });

  it("says the server's reason for a refusal, and an answer without a textureId", async () => {
    await expect(upload({ status: 403, text: JSON.stringify({ error: 'not an editor of a scene with this model' }) }).run(png())).rejects.toThrow(
      'The texture upload was refused: not an editor of a scene with this model.',
    );
    await expect(upload({ status: 500, text: 'oops' }).run(png())).rejects.toThrow('The texture upload was refused: HTTP 500.');
    await expect(upload({ status: 201, text: JSON.stringify({ textureId: 'x' }) }).run(png())).rejects.toThrow(
      'The texture upload answered without a textureId (http://models.test/v1/models/m%201/textures).',
    );
    await expect(upload(new Error('offline')).run(png())).rejects.toThrow('offline');
  });
});
