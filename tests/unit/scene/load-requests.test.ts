import { describe, expect, it } from 'vitest';
import { assetFileAt, configUrl, instanceSetAt, modelFileAt, mutationLogUrl, sceneUrl, trimBase } from '../../../src/scene/load-requests';

describe('the URLs the load asks for', () => {
  it('drop the endpoints trailing slashes and encode ids as path components', () => {
    expect(trimBase('https://ms.test//')).toBe('https://ms.test');
    expect(trimBase('')).toBe('');
    expect(configUrl()).toBe('/v1/config');
    expect(configUrl('https://viewer.test')).toBe('https://viewer.test/v1/config');
    expect(sceneUrl('https://ms.test/', 's 1/2')).toBe('https://ms.test/v1/scenes/s%201%2F2');
    expect(sceneUrl('', 's1')).toBe('/v1/scenes/s1');
    expect(mutationLogUrl('https://ms.test/', 'm?1', 7, 1000)).toBe('https://ms.test/v1/models/m%3F1/mutations?after=7&limit=1000');
    expect(assetFileAt('/cdn/', 'a b')).toBe('/cdn/assets/a%20b/model.3dxa');
    expect(instanceSetAt('https://ms.test', 's 1', 'g/1')).toBe('https://ms.test/v1/scenes/s%201/groups/g%2F1/instances');
  });

  it("a model file is the version key's model_file.binz, with the signed query when there is one", () => {
    expect(modelFileAt('https://cdn.test/', 'derivatives/m/v1')).toBe('https://cdn.test/derivatives/m/v1/model_file.binz');
    expect(modelFileAt('https://cdn.test', 'derivatives/m/v1', 'exp=1&sig=a')).toBe('https://cdn.test/derivatives/m/v1/model_file.binz?exp=1&sig=a');
    expect(modelFileAt('https://cdn.test', 'k', '')).toBe('https://cdn.test/k/model_file.binz');
  });
});
