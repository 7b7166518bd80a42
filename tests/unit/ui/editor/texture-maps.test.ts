import { describe, expect, it } from 'vitest';
import type { Editor } from '../../../../src/editor/editor';
import { TextureMaps } from '../../../../src/ui/editor/texture-maps';
import { html, panelState } from '../../../support/editor-panels';

describe('texture maps', () => {
  it("lists the material's maps with their texture info, and offers the free slots", () => {
    const editor = { listTextures: () => ['t1', 't2'] } as unknown as Editor;
    const material = { map: { textureId: 't1', wrapS: 1001, wrapT: 1000, magFilter: 1006, minFilter: 1008 }, normalMap: null, name: 'Steel' };
    const out = html(TextureMaps, { state: panelState(editor), modelId: 'm1', materialId: 'mat1', material });
    expect(out).toContain('aria-label="map wrapS"');
    expect(out).toMatch(/<option value="1001" selected="">Clamp to edge<\/option>/);
    expect(out).toContain('normalMap'); // free: offered to add
    expect(out).not.toContain('aria-label="normalMap wrapS"');
  });
});
