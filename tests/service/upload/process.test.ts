import { describe, expect, it } from 'vitest';
import { decodeContainer } from '../../../src/protocol/container-codec.ts';
import { ImportError } from '../../../src/server/upload/prepare.ts';
import { processModel } from '../../../src/server/upload/process.ts';
import { model } from './corpus.ts';

const OPTIONS = { maxBytes: 64 * 1024 * 1024, generator: 'process test' };

describe('processModel', () => {
  it('without optimize: the container holds the GLB byte for byte', async () => {
    const duck = await model('Duck.glb');
    const processed = await processModel({ fileName: 'Duck.glb', bytes: duck }, { ...OPTIONS, optimize: false });
    expect(processed.validation).toBeUndefined();
    const decoded = await decodeContainer(processed.container);
    expect(Buffer.compare(Buffer.from(decoded.asset), Buffer.from(duck))).toBe(0);
    expect(decoded.header.metadata).toMatchObject({ sourceFileName: 'Duck.glb', generator: 'process test' });
  });

  it('with optimize: validated, optimised, packed', async () => {
    const processed = await processModel({ fileName: 'Duck.glb', bytes: await model('Duck.glb') }, { ...OPTIONS, optimize: true });
    expect(processed.validation?.errors).toBe(0);
    expect(processed.optimization?.compression).toContain('EXT_meshopt_compression');
    expect((await decodeContainer(processed.container)).format).toBe('glb');
  });

  it('refuses a file over the limit, and one with validator errors (with the report)', async () => {
    const duck = await model('Duck.glb');
    await expect(processModel({ fileName: 'Duck.glb', bytes: duck }, { ...OPTIONS, optimize: true, maxBytes: 1000 })).rejects.toMatchObject({ code: 'TOO_LARGE' });
    const error = await processModel({ fileName: 'x.glb', bytes: await model('malformed/glb/invalid_magic.glb') }, { ...OPTIONS, optimize: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).report?.errors).toBeGreaterThan(0);
  });
});
