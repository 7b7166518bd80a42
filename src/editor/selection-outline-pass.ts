import {
  BufferAttribute,
  BufferGeometry,
  Color,
  DoubleSide,
  LinearFilter,
  Mesh,
  MeshBasicMaterial,
  NoBlending,
  NormalBlending,
  OrthographicCamera,
  PointsMaterial,
  RedFormat,
  ShaderMaterial,
  Uniform,
  UnsignedByteType,
  Vector2,
  Vector4,
  WebGLRenderTarget,
  type Camera,
  type Texture,
  type WebGLRenderer,
} from 'three';

/**
 * The selection outline's two passes on the GPU (./selection-outline.ts says why): the mask, what
 * `drawMask` draws flat white into a one-channel buffer, and the line, one full-screen triangle that
 * draws the outline's colour around the mask; both inside the selection's screen rectangle. Every
 * renderer setting it touches is put back.
 */
export interface OutlinePass {
  /** The flat material the mask draws meshes and lines with. */
  readonly maskMaterial: MeshBasicMaterial;
  /** The flat material the mask draws points with. */
  readonly pointsMaterial: PointsMaterial;
  /**
   * Draws the mask and the line over the current picture inside `area` ([x, y, width, height] in
   * drawing-buffer pixels from the bottom left) of a `width` x `height` drawing buffer.
   */
  draw(
    renderer: WebGLRenderer,
    camera: Camera,
    area: readonly [number, number, number, number],
    width: number,
    height: number,
    pixelRatio: number,
    drawMask: (renderer: WebGLRenderer, camera: Camera) => void,
  ): void;
  dispose(): void;
}

const savedScissor = new Vector4();
const savedClear = new Color();

/** The passes for a line `widthCss` CSS pixels wide in `color` (sRGB). */
export function createOutlinePass(widthCss: number, color: number): OutlinePass {
  const maskMaterial = new MeshBasicMaterial({
    color: 0xffffff,
    side: DoubleSide,
    depthTest: false,
    depthWrite: false,
    toneMapped: false,
    fog: false,
    blending: NoBlending,
  });
  const pointsMaterial = new PointsMaterial({
    color: 0xffffff,
    size: 3,
    sizeAttenuation: false,
    depthTest: false,
    depthWrite: false,
    toneMapped: false,
    fog: false,
    blending: NoBlending,
  });
  let mask: WebGLRenderTarget | null = null;
  const quadGeometry = new BufferGeometry();
  quadGeometry.setAttribute('position', new BufferAttribute(new Float32Array([-1, -1, 0, 3, -1, 0, -1, 3, 0]), 3));
  const lineMaterial = new ShaderMaterial({
    name: 'SelectionOutline.Line',
    uniforms: {
      mask: new Uniform<Texture | null>(null),
      texel: new Uniform(new Vector2()),
      radius: new Uniform(widthCss),
      color: new Uniform(new Color(color)),
    },
    vertexShader: /* glsl */ `
      void main() {
        gl_Position = vec4(position.xy, 0.0, 1.0);
      }`,
    fragmentShader: /* glsl */ `
      uniform sampler2D mask;
      uniform vec2 texel;
      uniform float radius;
      uniform vec3 color;
      float near(vec2 uv, vec2 step) {
        float m = texture2D(mask, uv + vec2(step.x, 0.0)).r;
        m = max(m, texture2D(mask, uv - vec2(step.x, 0.0)).r);
        m = max(m, texture2D(mask, uv + vec2(0.0, step.y)).r);
        m = max(m, texture2D(mask, uv - vec2(0.0, step.y)).r);
        vec2 d = step * 0.7071;
        m = max(m, texture2D(mask, uv + d).r);
        m = max(m, texture2D(mask, uv - d).r);
        m = max(m, texture2D(mask, uv + vec2(d.x, -d.y)).r);
        m = max(m, texture2D(mask, uv + vec2(-d.x, d.y)).r);
        return m;
      }
      void main() {
        vec2 uv = gl_FragCoord.xy * texel;
        float inside = texture2D(mask, uv).r;
        if (inside > 0.99) discard;
        float m = max(near(uv, texel * radius), near(uv, texel * radius * 0.5));
        float alpha = m * (1.0 - inside);
        if (alpha < 0.004) discard;
        gl_FragColor = vec4(color, alpha);
      }`,
    transparent: true,
    blending: NormalBlending,
    depthTest: false,
    depthWrite: false,
    toneMapped: false,
  });
  // Its colour is written as it is (sRGB): no output conversion.
  lineMaterial.uniforms.color.value.setHex(color, 'srgb-linear');
  const quad = new Mesh(quadGeometry, lineMaterial);
  quad.frustumCulled = false;
  const quadCamera = new OrthographicCamera(-1, 1, 1, -1, 0, 1);

  return {
    maskMaterial,
    pointsMaterial,
    draw(renderer, camera, area, width, height, pixelRatio, drawMask) {
      const x = area[0];
      const y = area[1];
      const w = area[2];
      const h = area[3];
      if (!mask) {
        mask = new WebGLRenderTarget(width, height, {
          format: RedFormat,
          type: UnsignedByteType,
          depthBuffer: false,
          stencilBuffer: false,
          magFilter: LinearFilter,
          minFilter: LinearFilter,
          generateMipmaps: false,
        });
        mask.texture.name = 'Selection outline mask';
      } else if (mask.width !== width || mask.height !== height) {
        mask.setSize(width, height);
      }
      // The mask is cleared and drawn a line's width beyond the rectangle the line pass reads.
      const margin = Math.ceil(widthCss * pixelRatio) + 2;
      mask.scissor.set(
        Math.max(0, x - margin),
        Math.max(0, y - margin),
        Math.min(width, x + w + margin) - Math.max(0, x - margin),
        Math.min(height, y + h + margin) - Math.max(0, y - margin),
      );
      mask.scissorTest = true;

      const previousTarget = renderer.getRenderTarget();
      const autoClear = renderer.autoClear;
      renderer.getClearColor(savedClear);
      const clearAlpha = renderer.getClearAlpha();
      renderer.getScissor(savedScissor);
      const scissorTest = renderer.getScissorTest();
      const shadowMap = renderer.shadowMap;
      const shadowAutoUpdate = shadowMap.autoUpdate;
      const shadowNeedsUpdate = shadowMap.needsUpdate;
      try {
        renderer.autoClear = false;
        shadowMap.autoUpdate = false;
        shadowMap.needsUpdate = false;
        renderer.setRenderTarget(mask);
        renderer.setClearColor(0x000000, 0);
        renderer.clear(true, false, false);
        drawMask(renderer, camera);
        renderer.setRenderTarget(null);
        lineMaterial.uniforms.mask.value = mask.texture;
        lineMaterial.uniforms.texel.value.set(1 / width, 1 / height);
        lineMaterial.uniforms.radius.value = widthCss * pixelRatio;
        renderer.setScissorTest(true);
        renderer.setScissor(x / pixelRatio, y / pixelRatio, w / pixelRatio, h / pixelRatio);
        renderer.render(quad, quadCamera);
      } finally {
        renderer.setRenderTarget(previousTarget);
        renderer.setScissor(savedScissor);
        renderer.setScissorTest(scissorTest);
        renderer.setClearColor(savedClear, clearAlpha);
        renderer.autoClear = autoClear;
        shadowMap.autoUpdate = shadowAutoUpdate;
        shadowMap.needsUpdate = shadowNeedsUpdate;
      }
    },
    dispose() {
      mask?.dispose();
      maskMaterial.dispose();
      pointsMaterial.dispose();
      lineMaterial.dispose();
      quadGeometry.dispose();
    },
  };
}
