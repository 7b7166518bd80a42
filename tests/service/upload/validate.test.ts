import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refuses, validateModel } from '../../../src/server/upload/validate.ts';
import { MODELS_DIR } from '../helpers.ts';
import { model } from './corpus.ts';

describe('validateModel (Khronos glTF-Validator)', () => {
  it('accepts a valid model and reports what the validator found', async () => {
    const report = await validateModel(await model('Duck.glb'), { fileName: 'Duck.glb' });
    expect(report.validatorVersion).toMatch(/^2\./);
    expect(report.errors).toBe(0);
    expect(refuses(report)).toBe(false);
  });

  it('refuses a file that is not glTF with the validator messages (severity, code, message, pointer)', async () => {
    const report = await validateModel(new TextEncoder().encode('just some notes'), { fileName: 'notes.txt' });
    expect(refuses(report)).toBe(true);
    expect(report.messages[0]).toMatchObject({ severity: 'error', code: 'GLB_INVALID_MAGIC' });
    expect(typeof report.messages[0].message).toBe('string');
    const json = await validateModel(new TextEncoder().encode('{"asset": 12'), { fileName: 'broken.gltf' });
    expect(json.messages[0]).toMatchObject({ severity: 'error', code: 'INVALID_JSON' });
  });

  it('marks the errors the optimisation repairs, and does not refuse for them', async () => {
    const report = await validateModel(await model('pbr_next_sphere.glb'), { fileName: 'pbr_next_sphere.glb' });
    expect(report.errors).toBe(14);
    expect(report.repaired).toBe(14);
    expect(refuses(report)).toBe(false);
    expect(report.messages.filter((m) => m.severity === 'error').every((m) => m.repaired)).toBe(true);
  });

  it('refuses every file of the malformed corpus that the validator finds errors in, with its codes', async () => {
    for (const folder of ['glb', 'buffer']) {
      const dir = join(MODELS_DIR, 'malformed', folder);
      for (const name of (await readdir(dir)).filter((n) => n.endsWith('.glb'))) {
        const expected = JSON.parse(await readFile(join(dir, `${name}.report.json`), 'utf8')) as { issues: { numErrors: number; messages: { code: string; severity: number }[] } };
        const report = await validateModel(await model(join('malformed', folder, name)), { fileName: name });
        const errorCodes = (r: { messages: { code: string; severity: unknown }[] }, error: unknown) => [...new Set(r.messages.filter((m) => m.severity === error).map((m) => m.code))].sort();
        expect({ name, refused: refuses(report) }).toEqual({ name, refused: expected.issues.numErrors > 0 });
        expect({ name, codes: errorCodes(report, 'error') }).toEqual({ name, codes: errorCodes(expected.issues, 0) });
      }
    }
  });
});
