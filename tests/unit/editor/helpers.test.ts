import { PerspectiveCamera, Scene } from 'three';
import { describe, expect, it } from 'vitest';
import { attachObjectHelpers, helperCount } from '../../../src/editor/helpers';
import { runFrameSteps } from '../../../src/engine/frame-steps';
import { HELPER_LAYER } from '../../../src/engine/layers';
import { createViewerWorld } from '../../../src/engine/world';
import { defaultSceneObject } from '../../../src/protocol/scene-objects';
import { SceneObjects } from '../../../src/viewer/scene-objects';
import { syncSystem } from '../../../systems/syncSystem';
import { transformSystem } from '../../../systems/transformSystem';

describe('scene object helpers (editor only)', () => {
  it('shows one helper per placed object on the helper layer, follows moves, and goes away', () => {
    const world = createViewerWorld();
    world.render.camera = new PerspectiveCamera();
    const scene = new Scene();
    const objects = new SceneObjects(world, scene);
    objects.put(defaultSceneObject('SpotLight', 's'));
    const helpers = attachObjectHelpers(world, scene, objects);
    expect(helperCount(scene)).toBe(1);
    objects.put(defaultSceneObject('PointLight', 'p'));
    objects.put(defaultSceneObject('AmbientLight', 'a')); // no place: no helper
    objects.put(defaultSceneObject('PerspectiveCamera', 'c'));
    objects.put(defaultSceneObject('Group', 'g'));
    objects.put(defaultSceneObject('RectAreaLight', 'r'));
    objects.put(defaultSceneObject('HemisphereLight', 'h'));
    objects.put(defaultSceneObject('DirectionalLight', 'd'));
    expect(helperCount(scene)).toBe(7);
    scene.traverse((o) => {
      if (o.userData.helperOf) expect(o.layers.isEnabled(HELPER_LAYER) && !o.layers.isEnabled(0)).toBe(true);
    });

    // A moved group: its axes follow in the helpers step.
    objects.put({ ...objects.get('g')!.data, position: [3, 0, 0] });
    transformSystem(world);
    syncSystem(world);
    runFrameSteps(world, 'helpers');
    let axes: { matrix: { elements: number[] } } | undefined;
    scene.traverse((o) => {
      if (o.userData.helperOf === 'g') axes = o;
    });
    expect(axes!.matrix.elements[12]).toBe(3);
    // The helper of an object, by its uuid (the selection outline follows it); none for an ambient light.
    expect(helpers.helperOf('g')).toBe(axes);
    expect(helpers.helperOf('a')).toBeNull();

    // Hidden while the editor is disabled.
    helpers.setShown(false);
    runFrameSteps(world, 'helpers');
    expect((axes as unknown as { visible: boolean }).visible).toBe(false);
    helpers.setShown(true);
    runFrameSteps(world, 'helpers');
    expect((axes as unknown as { visible: boolean }).visible).toBe(true);

    objects.remove('p');
    expect(helperCount(scene)).toBe(6);
    expect(helpers.helperOf('p')).toBeNull();
    helpers.detach();
    expect(helperCount(scene)).toBe(0);
    expect(world.steps.helpers).toHaveLength(0);
  });
});
