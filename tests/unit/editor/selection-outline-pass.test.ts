import { Mesh, PerspectiveCamera, WebGLRenderTarget, type WebGLRenderer } from 'three';
import { describe, expect, it } from 'vitest';
import { createOutlinePass } from '../../../src/editor/selection-outline-pass';
import { fakeRenderer } from '../../support/outline-renderer';

const W = 800;
const H = 600;

describe('selection outline passes', () => {
  it('draws the mask into its own target, then the line inside the area, and puts the renderer back', () => {
    const { renderer, rendered } = fakeRenderer(W, H);
    const pass = createOutlinePass(2, 0x1f8efa);
    const camera = new PerspectiveCamera();
    let maskTarget: unknown = null;
    pass.draw(renderer as unknown as WebGLRenderer, camera, [100, 50, 200, 150], W, H, 2, (r, c) => {
      expect(c).toBe(camera);
      maskTarget = (r as unknown as typeof renderer).target;
      expect(renderer.autoClear).toBe(false);
      expect(renderer.shadowMap.autoUpdate).toBe(false);
    });
    expect(maskTarget).toBeInstanceOf(WebGLRenderTarget);
    expect((maskTarget as WebGLRenderTarget).width).toBe(W);
    // The line: one triangle with the line material, scissored to the area in CSS pixels.
    expect(rendered).toHaveLength(1);
    expect((rendered[0]!.object as Mesh).material).toMatchObject({ name: 'SelectionOutline.Line' });
    expect(renderer.scissors[0]).toEqual([50, 25, 100, 75]);
    // The mask is cleared a line's width (2 x 2 px + 2) beyond the area.
    expect((maskTarget as WebGLRenderTarget).scissor.toArray()).toEqual([94, 44, 212, 162]);
    expect(renderer.target).toBeNull();
    expect(renderer.autoClear).toBe(true);
    expect(renderer.scissorTest).toBe(false);
    expect(renderer.shadowMap.autoUpdate).toBe(true);
    expect(pass.maskMaterial.depthTest).toBe(false);
    expect(pass.pointsMaterial.depthTest).toBe(false);
    pass.dispose();
  });

  it('puts the renderer back when the mask drawing throws', () => {
    const { renderer } = fakeRenderer(W, H);
    const pass = createOutlinePass(2, 0xffffff);
    expect(() =>
      pass.draw(renderer as unknown as WebGLRenderer, new PerspectiveCamera(), [0, 0, 10, 10], W, H, 1, () => {
        throw new Error('lost context');
      }),
    ).toThrow('lost context');
    expect(renderer.target).toBeNull();
    expect(renderer.autoClear).toBe(true);
    expect(renderer.shadowMap.autoUpdate).toBe(true);
  });
});
