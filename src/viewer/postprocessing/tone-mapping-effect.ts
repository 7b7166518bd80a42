import { EffectAttribute, ToneMappingEffect } from 'postprocessing';
import { ColorManagement, SRGBTransfer, Uniform, type Scene, type Texture } from 'three';

/**
 * pmndrs' ToneMappingEffect, except that the background keeps its colour the way three.js keeps
 * it without post-processing: a colour background (and an sRGB image) is not tone mapped, an HDR
 * (linear) background is. Without this, ACES turns the default background ececec into e0e0e0 on
 * the medium and high tiers only. The background is told apart by depth: nothing was drawn where
 * the depth buffer still holds its clear value 1.
 *
 * The library runs the effect's own mainImage for drawn pixels unchanged (it is renamed here, and
 * a mainImage that also receives the depth calls it).
 */

const SIGNATURE = /void\s+mainImage\s*\(\s*const\s+in\s+vec4\s+inputColor\s*,\s*const\s+in\s+vec2\s+uv\s*,\s*out\s+vec4\s+outputColor\s*\)\s*\{/;

export class SceneToneMappingEffect extends ToneMappingEffect {
  constructor(options: ConstructorParameters<typeof ToneMappingEffect>[0] = {}) {
    super(options);
    const source = this.getFragmentShader();
    if (!SIGNATURE.test(source)) throw new Error('SceneToneMappingEffect: the tone mapping shader of postprocessing changed; update src/viewer/postprocessing/tone-mapping-effect.ts.');
    this.setFragmentShader(
      `uniform bool toneMapBackground;\n${source.replace(SIGNATURE, 'void toneMapPixel(const in vec4 inputColor, const in vec2 uv, out vec4 outputColor) {')}
void mainImage(const in vec4 inputColor, const in vec2 uv, const in float depth, out vec4 outputColor) {
  if (depth >= 1.0 && !toneMapBackground) {
    outputColor = inputColor;
  } else {
    toneMapPixel(inputColor, uv, outputColor);
  }
}
`,
    );
    this.uniforms.set('toneMapBackground', new Uniform(false));
    this.setAttributes(this.getAttributes() | EffectAttribute.DEPTH);
  }

  /** Follows three.js: an HDR (not sRGB) texture background is tone mapped, anything else is not. */
  updateBackground(scene: Scene): void {
    const background = scene.background as (Texture & { isTexture?: boolean }) | null;
    const hdr = !!background?.isTexture && ColorManagement.getTransfer(background.colorSpace) !== SRGBTransfer;
    this.uniforms.get('toneMapBackground')!.value = hdr;
  }
}
