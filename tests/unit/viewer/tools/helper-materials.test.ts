import { Color, MeshBasicMaterial, ShaderChunk, type WebGLProgramParametersWithUniforms, type WebGLRenderer } from 'three';
import { describe, expect, it } from 'vitest';
import { contrastingColor, createCapMaterial, createFillMaterial, createLineMaterial, createPlaneFillMaterial, createPointMaterial, exemptFromClipping, PLANE_INTERIOR_SHARE } from '../../../../src/viewer/tools/helper-materials';

const shader = (fragment: string) =>
  ({ uniforms: {}, vertexShader: '', fragmentShader: fragment }) as unknown as WebGLProgramParametersWithUniforms;
const renderer = {} as WebGLRenderer;

describe('helper materials', () => {
  it('drop the fragment clipping of section planes, with their own program key', () => {
    const material = exemptFromClipping(new MeshBasicMaterial());
    const s = shader(`void main() {\n#include <clipping_planes_fragment>\ngl_FragColor = vec4(1.0);\n}`);
    material.onBeforeCompile(s, renderer);
    expect(s.fragmentShader).not.toContain('clipping_planes_fragment');
    expect(material.customProgramCacheKey()).toBe('tools-helper-noclip');
    expect(createLineMaterial(0xff0000, 2).customProgramCacheKey()).toBe('tools-helper-noclip');
  });

  it('own shaders have no clipping at all and draw over the model where they should', () => {
    const points = createPointMaterial(0x00ff00, 10);
    expect(points.clipping).toBe(false);
    expect(points.fragmentShader).not.toContain('clipping');
    expect(points.depthTest).toBe(false);
    const fill = createFillMaterial(0xffd400, 0.2);
    expect(fill.clipping).toBe(false);
    expect(fill.uniforms.opacity.value).toBe(0.2);
    expect(fill.depthTest).toBe(true);
  });

  it("point markers follow the renderer's current pixel ratio at each draw", () => {
    const points = createPointMaterial(0x00ff00, 10);
    let ratio = 1.5;
    const drawing = { getPixelRatio: () => ratio } as unknown as WebGLRenderer;
    const draw = () => (points.onBeforeRender as unknown as (r: WebGLRenderer) => void)(drawing);
    draw();
    expect(points.uniforms.pixelRatio.value).toBe(1.5);
    // The quality drops to low (pixel ratio 1) after the marker was made.
    ratio = 1;
    draw();
    expect(points.uniforms.pixelRatio.value).toBe(1);
    expect(points.uniforms.size.value).toBe(10);
  });

  it('caps are cut by every plane but their own', () => {
    const cap = createCapMaterial(new Color(0x336699));
    expect(cap.color.getHex()).toBe(0x336699);
    const s = shader(`void main() {\n#include <clipping_planes_fragment>\n}`);
    cap.onBeforeCompile(s, renderer);
    expect(s.fragmentShader).toContain('uniform int capSkipPlane;');
    expect(s.fragmentShader).toContain('if (i == capSkipPlane) continue;');
    expect(s.fragmentShader).not.toContain('#include <clipping_planes_fragment>');
    // The uniform is the material's: the section tool sets the plane's index there.
    cap.userData.skipPlane.value = 2;
    expect((s as unknown as { uniforms: { capSkipPlane: { value: number } } }).uniforms.capSkipPlane.value).toBe(2);
    // three's chunk that is replaced still exists under that name.
    expect(ShaderChunk.clipping_planes_fragment).toContain('clippingPlanes');
  });
});

describe('section plane and cap materials', () => {
  it('a plane fill keeps the full opacity for its border band and a share of it inside', () => {
    const fill = createPlaneFillMaterial(0xffd400, 0.2);
    expect(fill.uniforms.opacity.value).toBe(0.2);
    expect(fill.uniforms.interior.value).toBe(PLANE_INTERIOR_SHARE);
    expect(PLANE_INTERIOR_SHARE).toBeLessThan(0.5);
    expect(fill.fragmentShader).toContain('edge < band ? opacity : opacity * interior');
    expect(fill.clipping).toBe(false);
  });

  it('caps are hatched in a colour that stands out against theirs', () => {
    expect(contrastingColor(new Color(1, 1, 1)).r).toBeLessThan(0.1);
    expect(contrastingColor(new Color(0.02, 0.02, 0.05)).r).toBeGreaterThan(0.9);
    const cap = createCapMaterial(new Color(0.9, 0.9, 0.9));
    const s = shader(`uniform int x;\n#include <color_fragment>\n#include <clipping_planes_fragment>\n`);
    cap.onBeforeCompile(s, renderer);
    expect(s.fragmentShader).toContain('capHatchColor');
    expect(s.fragmentShader).toContain('gl_FragCoord.x + gl_FragCoord.y');
    expect(s.fragmentShader).toContain('i == capSkipPlane');
    expect((s.uniforms as Record<string, { value: Color }>).capHatchColor.value.r).toBeLessThan(0.1);
  });
});
