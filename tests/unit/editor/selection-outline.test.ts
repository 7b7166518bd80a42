import { BoxGeometry, Group, Line, BufferGeometry, Float32BufferAttribute, LineBasicMaterial, Matrix4, Mesh, MeshStandardMaterial, Object3D, PerspectiveCamera, Scene, type Material, type WebGLRenderer } from 'three';
import { describe, expect, it } from 'vitest';
import { createSelectionOutline } from '../../../src/editor/selection-outline';
import { runFrameSteps } from '../../../src/engine/frame-steps';
import { setPosition, spawnTransformEntity } from '../../../src/engine/hierarchy';
import { createInstanceGroup, setInstanceMatrices, type InstanceAsset } from '../../../src/engine/instances';
import { bindObject } from '../../../src/engine/registry';
import { detachFromThreeMatrixUpdates } from '../../../src/engine/sync';
import { addViewerEntity, createViewerWorld, type ViewerWorld } from '../../../src/engine/world';
import { syncSystem } from '../../../systems/syncSystem';
import { transformSystem } from '../../../systems/transformSystem';
import { fakeRenderer } from '../../support/outline-renderer';

const W = 800;
const H = 600;

/** A camera at z = 10 looking down -z (45°, 4:3). */
function camera(): PerspectiveCamera {
  const c = new PerspectiveCamera(45, W / H, 0.1, 100);
  c.position.set(0, 0, 10);
  c.updateMatrixWorld();
  return c;
}

/** An entity node with an Object3D under ECS control, a unit box mesh under it. */
function node(world: ViewerWorld, scene: Object3D, parent = 0): { eid: number; object: Object3D; mesh: Mesh } {
  const eid = spawnTransformEntity(world, parent);
  const object = new Group();
  detachFromThreeMatrixUpdates(object);
  bindObject(world, eid, object);
  (parent ? world.objects[parent]! : scene).add(object);
  const mesh = new Mesh(new BoxGeometry(1, 1, 1), new MeshStandardMaterial());
  detachFromThreeMatrixUpdates(mesh);
  const child = spawnTransformEntity(world, eid);
  bindObject(world, child, mesh);
  object.add(mesh);
  return { eid, object, mesh };
}

function frame(world: ViewerWorld): void {
  transformSystem(world);
  syncSystem(world);
}

/** The screen x of a world point for camera() (pixels from the left). */
const screenX = (x: number, z = 0) => ((x / ((10 - z) * Math.tan((22.5 * Math.PI) / 180) * (W / H)) + 1) / 2) * W;

describe('selection outline: bounds and the screen rectangle', () => {
  it('bounds a model node with its children, follows a drag without walking the subtree, and clears', () => {
    const world = createViewerWorld();
    const scene = new Scene();
    const a = node(world, scene);
    const b = node(world, scene, a.eid);
    setPosition(world, b.eid, 2, 0, 0);
    frame(world);
    const outline = createSelectionOutline(world);
    expect(outline.prepare(camera(), W, H)).toBeNull();
    outline.showObjects([a.object]);
    expect(outline.active).toBe(true);
    const rect = outline.prepare(camera(), W, H)!;
    // The node's box and its child's: x from -0.5 to 2.5.
    expect(outline.bounds.min.x).toBeCloseTo(-0.5);
    expect(outline.bounds.max.x).toBeCloseTo(2.5);
    // The rectangle holds the projected box plus the line's width and a little more, no more.
    expect(rect[0]).toBeLessThanOrEqual(Math.floor(screenX(-0.5, 0.5)));
    expect(rect[0]).toBeGreaterThan(screenX(-0.5, 0.5) - 10);
    expect(rect[0] + rect[2]).toBeGreaterThanOrEqual(Math.ceil(screenX(2.5, 0.5)));
    expect(rect[0] + rect[2]).toBeLessThan(screenX(2.5, 0.5) + 10);

    // A drag moves the node: the box goes along (the subtree's own-space box is reused).
    let walked = 0;
    const traverse = a.object.traverse.bind(a.object);
    a.object.traverse = (fn) => {
      walked++;
      traverse(fn);
    };
    setPosition(world, a.eid, 1, 0, 0);
    frame(world);
    outline.prepare(camera(), W, H);
    expect(outline.bounds.min.x).toBeCloseTo(0.5);
    expect(outline.bounds.max.x).toBeCloseTo(3.5);
    expect(walked).toBe(0);
    // Something else moved (an undo of the child): the subtree is read again.
    setPosition(world, b.eid, 4, 0, 0);
    frame(world);
    outline.prepare(camera(), W, H);
    expect(walked).toBe(1);
    expect(outline.bounds.max.x).toBeCloseTo(5.5);

    // Hidden (or under a hidden parent): nothing to draw.
    a.object.visible = false;
    expect(outline.prepare(camera(), W, H)).toBeNull();
    a.object.visible = true;
    // Behind the camera: the whole screen (no corner can be projected).
    const turned = camera();
    turned.position.set(1, 0, 0.2);
    turned.updateMatrixWorld();
    expect(outline.prepare(turned, W, H)).toEqual([0, 0, W, H]);
    outline.clear();
    expect(outline.active).toBe(false);
    expect(outline.prepare(camera(), W, H)).toBeNull();
  });

  it('bounds helpers (lines, not entities) where they are now', () => {
    const world = createViewerWorld();
    const helper = new Line(new BufferGeometry().setAttribute('position', new Float32BufferAttribute([0, 0, 0, 0, 1, 0], 3)), new LineBasicMaterial());
    helper.position.set(-3, 0, 0);
    helper.updateMatrixWorld();
    const outline = createSelectionOutline(world);
    outline.showObjects([helper]);
    outline.prepare(camera(), W, H);
    expect(outline.bounds.min.toArray()).toEqual([-3, 0, 0]);
    expect(outline.bounds.max.toArray()).toEqual([-3, 1, 0]);
    // A helper follows its light in the helpers step (no transform epoch): read at every picture.
    helper.position.x = 3;
    helper.updateMatrixWorld();
    outline.prepare(camera(), W, H);
    expect(outline.bounds.min.x).toBe(3);
  });

  it('outlines just the selected instances of a group, following their moves', () => {
    const world = createViewerWorld();
    const eid = addViewerEntity(world);
    const object = new Group();
    bindObject(world, eid, object);
    const asset: InstanceAsset = { assetId: 'a', parts: [{ name: 'p', geometry: new BoxGeometry(1, 1, 1), material: new MeshStandardMaterial() }], box: new Float32Array([-0.5, -0.5, -0.5, 0.5, 0.5, 0.5]), placeholder: false };
    const matrices = new Float32Array(3 * 16);
    for (let i = 0; i < 3; i++) new Matrix4().makeTranslation(i * 3, 0, 0).toArray(matrices, i * 16);
    const group = createInstanceGroup(world, eid, { uuid: 'g', asset, ids: new Uint32Array([0, 1, 2]), matrices });
    const outline = createSelectionOutline(world);
    outline.showInstances('g', [1]);
    outline.prepare(camera(), W, H);
    expect(outline.bounds.min.x).toBeCloseTo(2.5);
    expect(outline.bounds.max.x).toBeCloseTo(3.5);
    setInstanceMatrices(world, group, [1], new Matrix4().makeTranslation(-5, 0, 0).elements);
    outline.prepare(camera(), W, H);
    expect(outline.bounds.min.x).toBeCloseTo(-5.5);
    // An unknown group clears.
    outline.showInstances('nope', [1]);
    expect(outline.active).toBe(false);
  });
});

describe('selection outline: drawing after the picture', () => {
  it('draws the selection flat into the mask, then the line; every material and renderer setting is put back', () => {
    const world = createViewerWorld();
    const scene = new Scene();
    const a = node(world, scene);
    frame(world);
    const { renderer, rendered } = fakeRenderer(W, H);
    world.render.renderer = renderer as unknown as WebGLRenderer;
    world.render.scene = scene;
    world.render.camera = camera();
    const outline = createSelectionOutline(world);
    const original = a.mesh.material;
    runFrameSteps(world, 'afterDraw');
    expect(rendered).toHaveLength(0); // nothing selected: nothing drawn
    outline.showObjects([a.object]);
    runFrameSteps(world, 'afterDraw');
    expect(rendered.map((r) => r.object)).toEqual([a.object, expect.objectContaining({ name: '' })]);
    // The mask pass saw the flat mask material, not the node's own.
    expect(rendered[0]!.materials[0]).not.toBe(original);
    expect((rendered[0]!.materials[0] as Material & { depthTest: boolean }).depthTest).toBe(false);
    expect(a.mesh.material).toBe(original);
    expect(renderer.autoClear).toBe(true);
    expect(renderer.scissorTest).toBe(false);
    expect(renderer.target).toBeNull();
    expect(renderer.shadowMap.autoUpdate).toBe(true);
    outline.dispose();
    rendered.length = 0;
    runFrameSteps(world, 'afterDraw');
    expect(rendered).toHaveLength(0);
  });
});
