import type { Material, Mesh, Object3D, Vector2, Vector4 } from 'three';

/** What the outline's draw uses of a WebGLRenderer, recording what it renders and with which materials. */
export function fakeRenderer(W: number, H: number) {
  const rendered: { object: Object3D; materials: Material[] }[] = [];
  const renderer = {
    shadowMap: { autoUpdate: true, needsUpdate: false },
    autoClear: true,
    target: null as unknown,
    scissorTest: false,
    getPixelRatio: () => 1,
    getDrawingBufferSize: (v: Vector2) => v.set(W, H),
    getRenderTarget() {
      return this.target;
    },
    setRenderTarget(t: unknown) {
      this.target = t;
    },
    getClearColor: (c: { setHex(h: number): void }) => c.setHex(0x123456),
    getClearAlpha: () => 1,
    setClearColor() {},
    getScissor: (v: Vector4) => v.set(0, 0, W, H),
    /** The arguments of each setScissor call. */
    scissors: [] as unknown[][],
    getScissorTest() {
      return this.scissorTest;
    },
    setScissor(...args: unknown[]) {
      this.scissors.push(args);
    },
    setScissorTest(on: boolean) {
      this.scissorTest = on;
    },
    clear() {},
    render(object: Object3D) {
      const materials: Material[] = [];
      object.traverse((o) => {
        if ((o as Mesh).isMesh) materials.push((o as Mesh).material as Material);
      });
      rendered.push({ object, materials });
    },
  };
  return { renderer, rendered };
}
