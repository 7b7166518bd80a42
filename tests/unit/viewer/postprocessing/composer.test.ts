import { EffectAttribute } from 'postprocessing';
import { PerspectiveCamera, Scene } from 'three';
import { describe, expect, it, vi } from 'vitest';
import { groupEffects } from '../../../../src/viewer/postprocessing/composer';
import { createEffectStack, disposeEffectStack } from '../../../../src/viewer/postprocessing/effects';

/** Merging effects into EffectPasses, and freeing what the effects own. */

const effect = (name: string, attributes: number) => ({ name, getAttributes: () => attributes });
const C = EffectAttribute.CONVOLUTION;
const D = EffectAttribute.DEPTH;

describe('groupEffects', () => {
  const names = (groups: { name: string }[][]) => groups.map((g) => g.map((e) => e.name));

  it('puts effects without convolution into one pass', () => {
    expect(names(groupEffects([effect('bloom', D), effect('toneMapping', D), effect('vignette', 0)]))).toEqual([['bloom', 'toneMapping', 'vignette']]);
  });

  it('starts a new pass only at a second convolution effect', () => {
    const all = [effect('ssr', C | D), effect('bloom', D), effect('toneMapping', D), effect('smaa', C | D), effect('chromaticAberration', C), effect('vignette', 0)];
    expect(names(groupEffects(all))).toEqual([['ssr', 'bloom', 'toneMapping'], ['smaa'], ['chromaticAberration', 'vignette']]);
    // Without reflections SMAA joins the first pass (the library runs it first there).
    expect(names(groupEffects(all.filter((e) => e.name !== 'ssr')))).toEqual([['bloom', 'toneMapping', 'smaa'], ['chromaticAberration', 'vignette']]);
    // The default config: one pass.
    expect(names(groupEffects([effect('bloom', D), effect('toneMapping', D), effect('smaa', C | D)]))).toEqual([['bloom', 'toneMapping', 'smaa']]);
  });

  it('no effects, no passes', () => {
    expect(groupEffects([])).toEqual([]);
  });
});

describe('the effect stack', () => {
  it('tone mapping and bloom both carry DEPTH, so the library keeps bloom before tone mapping', () => {
    const s = createEffectStack(new Scene(), new PerspectiveCamera());
    expect(s.toneMapping.getAttributes() & D).toBe(D);
    expect(s.bloom.getAttributes()).toBe(s.toneMapping.getAttributes());
    expect(s.ssr.getAttributes()).toBe(C | D);
    disposeEffectStack(s);
  });

  it('disposing frees the AO pass and its quads but never the renderer it was given', () => {
    const s = createEffectStack(new Scene(), new PerspectiveCamera());
    const renderer = { isWebGLRenderer: true, render: vi.fn(), dispose: vi.fn() };
    (s.ao as unknown as { renderer: unknown }).renderer = renderer;
    const quad = (s.ao as unknown as { copyQuad: { dispose(): void } }).copyQuad;
    const quadDispose = vi.spyOn(quad, 'dispose');
    disposeEffectStack(s);
    expect(quadDispose).toHaveBeenCalled();
    expect(renderer.dispose).not.toHaveBeenCalled();
  });
});
