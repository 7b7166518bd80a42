import { describe, expect, it } from 'vitest';
import { applyObjectChanges, defaultSceneObject, OBJECT_CHANGE_MEMORY, SceneObject, shadowMapWarning, shadowMapsOf, type SceneObjectChange } from '../../../src/protocol/scene-objects';

const put = (uuid: string, object: SceneObject): SceneObjectChange => ({ key: `object/${object.uuid}`, uuid, createdAt: 0, type: 'putObject', objectId: object.uuid, object });

describe('scene objects', () => {
  it('has the specification defaults', () => {
    expect(defaultSceneObject('SpotLight', 's')).toMatchObject({ intensity: 25, angle: 0.5, penumbra: 0.1, decay: 2 });
    expect(defaultSceneObject('PerspectiveCamera', 'c')).toMatchObject({ fov: 45, near: 0.1, far: 2000 });
    expect(defaultSceneObject('AmbientLight', 'a')).toMatchObject({ intensity: 0.5 });
    for (const type of ['Group', 'PointLight', 'AmbientLight', 'DirectionalLight', 'RectAreaLight', 'SpotLight', 'HemisphereLight', 'PerspectiveCamera'] as const) {
      expect(SceneObject.safeParse(defaultSceneObject(type, 'x')).success).toBe(true);
    }
  });

  it('applies changes in order, skips seen uuids, forgets beyond the memory', () => {
    const a = defaultSceneObject('Group', 'a');
    const first = applyObjectChanges([], [], [put('1', a), put('2', { ...a, name: 'A' }), { key: 'k', uuid: '3', createdAt: 0, type: 'removeObject', objectId: 'zz' }]);
    expect(first.objects).toEqual([{ ...a, name: 'A' }]);
    expect(first.applied).toEqual(['1', '2', '3']);
    const again = applyObjectChanges(first.objects, first.seen, [put('1', a)]);
    expect(again.skipped).toEqual(['1']);
    expect(again.objects[0].name).toBe('A');
    const many = Array.from({ length: OBJECT_CHANGE_MEMORY + 5 }, (_, i) => put(`m${i}`, a));
    expect(applyObjectChanges([], [], many).seen).toHaveLength(OBJECT_CHANGE_MEMORY);
  });

  it('counts shadow maps (a point light 6) and names the light that would pass 12', () => {
    const point = { ...defaultSceneObject('PointLight', 'p'), castShadow: true, name: 'Lamp' };
    expect(shadowMapsOf(point)).toBe(6);
    expect(shadowMapsOf({ ...point, visible: false })).toBe(0);
    expect(shadowMapsOf(defaultSceneObject('SpotLight', 's'))).toBe(1);
    expect(shadowMapsOf(defaultSceneObject('AmbientLight', 'a'))).toBe(0);
    expect(shadowMapWarning(6, point)).toBeNull();
    expect(shadowMapWarning(7, point)).toMatch(/'Lamp' would make 13 shadow maps, more than the 12/);
    expect(shadowMapWarning(20, { ...point, castShadow: false })).toBeNull();
  });
});
