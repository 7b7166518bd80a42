import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkGlb, checkGltfJson, ModelFormatError } from '../../../src/protocol/glb';

const MODELS = join(__dirname, '../../../../shared/models');

function glbFrom(json: object, bin?: Uint8Array): Uint8Array {
  const text = new TextEncoder().encode(JSON.stringify(json));
  const jsonLength = Math.ceil(text.length / 4) * 4;
  const binLength = bin ? Math.ceil(bin.length / 4) * 4 : 0;
  const total = 12 + 8 + jsonLength + (bin ? 8 + binLength : 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x46546c67, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, total, true);
  view.setUint32(12, jsonLength, true);
  view.setUint32(16, 0x4e4f534a, true);
  out.fill(0x20, 20, 20 + jsonLength);
  out.set(text, 20);
  if (bin) {
    view.setUint32(20 + jsonLength, binLength, true);
    view.setUint32(24 + jsonLength, 0x004e4942, true);
    out.set(bin, 28 + jsonLength);
  }
  return out;
}

describe('checkGlb on the Khronos validator corpus', () => {
  for (const dir of ['glb', 'buffer']) {
    const base = join(MODELS, 'malformed', dir);
    for (const file of readdirSync(base).filter((f) => f.endsWith('.glb'))) {
      const report = JSON.parse(readFileSync(join(base, `${file}.report.json`), 'utf8')) as { issues: { numErrors: number } };
      const errors = report.issues.numErrors;
      it(`${dir}/${file} is ${errors > 0 ? 'refused' : 'accepted'} (validator: ${errors} errors)`, () => {
        const bytes = new Uint8Array(readFileSync(join(base, file)));
        if (errors > 0) expect(() => checkGlb(bytes)).toThrow(ModelFormatError);
        else expect(checkGlb(bytes).json.asset?.version).toBe('2.0');
      });
    }
  }
});

describe('checkGlb on real models', () => {
  for (const file of readdirSync(MODELS).filter((f) => f.endsWith('.glb'))) {
    it(`accepts ${file}`, () => {
      const checked = checkGlb(new Uint8Array(readFileSync(join(MODELS, file))));
      expect(String(checked.json.asset?.version)).toMatch(/^2\./);
    });
  }
});

describe('checkGlb messages', () => {
  it('requires glTF 2.0 or higher', () => {
    expect(() => checkGlb(glbFrom({ asset: { version: '1.0' } }))).toThrow('version 2.0 or higher is required');
    expect(checkGlb(glbFrom({ asset: { version: '3.0' } })).json.asset?.version).toBe('3.0');
  });
  it('names a buffer longer than the BIN chunk', () => {
    const bytes = glbFrom({ asset: { version: '2.0' }, buffers: [{ byteLength: 12 }] }, new Uint8Array(8));
    expect(() => checkGlb(bytes)).toThrow('glTF buffer 0 declares 12 bytes but the BIN chunk holds 8.');
  });
  it('refuses an external buffer file, which a container cannot carry', () => {
    const bytes = glbFrom({ asset: { version: '2.0' }, buffers: [{ byteLength: 4, uri: 'model.bin' }] });
    expect(() => checkGlb(bytes)).toThrow('refers to an external file "model.bin"');
  });
  it('accepts trailing bytes after the declared length, refuses a shorter file', () => {
    const bytes = glbFrom({ asset: { version: '2.0' } });
    const longer = new Uint8Array(bytes.length + 3);
    longer.set(bytes);
    expect(() => checkGlb(longer)).not.toThrow();
    expect(() => checkGlb(bytes.subarray(0, bytes.length - 4))).toThrow(/declares \d+ bytes but the file has/);
  });
});

describe('checkGltfJson', () => {
  it('accepts embedded data URIs of the declared size', () => {
    const json = { asset: { version: '2.0' }, buffers: [{ byteLength: 3, uri: 'data:application/octet-stream;base64,AAEC' }] };
    expect(() => checkGltfJson(new TextEncoder().encode(JSON.stringify(json)))).not.toThrow();
  });
  it('refuses a data URI whose size differs from byteLength', () => {
    const json = { asset: { version: '2.0' }, buffers: [{ byteLength: 4, uri: 'data:application/octet-stream;base64,AAEC' }] };
    expect(() => checkGltfJson(new TextEncoder().encode(JSON.stringify(json)))).toThrow('declares 4 bytes but its data URI holds 3');
  });
  it('refuses text that is not JSON', () => {
    expect(() => checkGltfJson(new TextEncoder().encode('{ nope'))).toThrow('cannot be parsed');
  });
});
