import { Box3, BoxGeometry, Group, Matrix4, Mesh, MeshBasicMaterial, PerspectiveCamera, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { screenRect, shown, subtreeBox, unionTransformed } from '../../../src/editor/selection-bounds';

const W = 800;
const H = 600;

function camera(): PerspectiveCamera {
  const c = new PerspectiveCamera(45, W / H, 0.1, 100);
  c.position.set(0, 0, 10);
  c.updateMatrixWorld();
  return c;
}

describe('selection bounds', () => {
  it("boxes a subtree in its root's own space, whatever the root's place", () => {
    const root = new Group();
    root.position.set(100, 0, 0);
    root.rotation.y = Math.PI / 2;
    const mesh = new Mesh(new BoxGeometry(1, 1, 1), new MeshBasicMaterial());
    mesh.position.set(2, 0, 0);
    root.add(mesh);
    root.updateMatrixWorld(true);
    const box = subtreeBox(root, new Box3());
    expect(box.min.toArray().map((v) => +v.toFixed(6))).toEqual([1.5, -0.5, -0.5]);
    expect(box.max.toArray().map((v) => +v.toFixed(6))).toEqual([2.5, 0.5, 0.5]);
    expect(subtreeBox(new Group(), new Box3()).isEmpty()).toBe(true);
  });

  it('carries a box by a matrix into another, and leaves it alone for an empty box', () => {
    const out = new Box3(new Vector3(0, 0, 0), new Vector3(1, 1, 1));
    unionTransformed(out, new Box3(new Vector3(0, 0, 0), new Vector3(1, 1, 1)), new Matrix4().makeTranslation(5, 0, 0));
    expect(out.max.x).toBe(6);
    unionTransformed(out, new Box3(), new Matrix4().makeTranslation(50, 0, 0));
    expect(out.max.x).toBe(6);
  });

  it('knows an object under a hidden parent is not shown', () => {
    const parent = new Group();
    const child = new Group();
    parent.add(child);
    expect(shown(child)).toBe(true);
    parent.visible = false;
    expect(shown(child)).toBe(false);
  });

  it("gives a box's rectangle on screen with its margin, the whole screen when it is behind, none when it is off", () => {
    const out: [number, number, number, number] = [0, 0, 0, 0];
    const centred = screenRect(new Box3(new Vector3(-1, -1, -1), new Vector3(1, 1, 1)), camera(), W, H, 4, out);
    expect(centred).toBe(out);
    // Symmetric about the centre of the buffer.
    expect(out[0] + out[2] / 2).toBeCloseTo(W / 2, 0);
    expect(out[1] + out[3] / 2).toBeCloseTo(H / 2, 0);
    const bare = [...screenRect(new Box3(new Vector3(-1, -1, -1), new Vector3(1, 1, 1)), camera(), W, H, 0, [0, 0, 0, 0])!];
    expect(out[2] - bare[2]!).toBe(8);
    expect(screenRect(new Box3(new Vector3(-1, -1, 5), new Vector3(1, 1, 20)), camera(), W, H, 4, out)).toEqual([0, 0, W, H]);
    expect(screenRect(new Box3(new Vector3(100, -1, -1), new Vector3(101, 1, 1)), camera(), W, H, 4, out)).toBeNull();
  });
});
