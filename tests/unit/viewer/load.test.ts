import { describe, expect, it } from 'vitest';
import { defaultRenderConfig } from '../../../src/protocol/render-config';
import type { SceneDoc } from '../../../src/protocol/scene';
import { checkViewerConfig, FIRST_PICTURE_INSTANCES, instancesInFirstPicture } from '../../../src/viewer/load';

function scene(viewerConfig: SceneDoc['viewerConfig']): SceneDoc {
  return { _id: 's1', name: 'S', viewerConfig, models: [] };
}

describe('checkViewerConfig: the whole viewerConfig before any download', () => {
  it('an empty config gives the default render config, no settings and no environment', () => {
    const checked = checkViewerConfig(scene({}));
    expect(checked.renderConfig).toEqual(defaultRenderConfig());
    expect(checked.settings).toBeUndefined();
    expect(checked.environment).toBeNull();
  });

  it('keeps the settings as given (applied per present field) and names the environment to fetch', () => {
    const settings = { sunElevation: 30, environment: 'studio' };
    const checked = checkViewerConfig(scene({ scene: settings }));
    expect(checked.settings).toBe(settings);
    expect(checked.environment).toBe('studio');
  });

  it('parses the saved post-processing over the defaults', () => {
    const checked = checkViewerConfig(scene({ postprocessing: { bloom: { enabled: true } } }));
    expect(checked.renderConfig.bloom.enabled).toBe(true);
    expect(checked.renderConfig.smaa).toEqual(defaultRenderConfig().smaa);
  });

  it('an invalid post-processing field throws with its path', () => {
    expect(() => checkViewerConfig(scene({ postprocessing: { multisampling: 'lots' } }))).toThrow(
      /^The scene's post-processing settings are invalid: multisampling: /,
    );
  });

  it('invalid scene settings throw with every field and reason, before anything is loaded', () => {
    let message = '';
    try {
      checkViewerConfig(scene({ scene: { sunElevation: 120, fogEnabled: 'yes' } }));
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^The scene settings are not valid: /);
    expect(message).toContain('sunElevation');
    expect(message).toContain('fogEnabled');
  });
});

describe('instancesInFirstPicture: small scenes of groups are drawn in the first picture, large ones after it', () => {
  it('counts every group, inline matrices by their length', () => {
    expect(instancesInFirstPicture([])).toBe(true);
    expect(instancesInFirstPicture([{ instanceCount: 11_872 }, { matrices: [[1]] as never }])).toBe(true);
    expect(instancesInFirstPicture([{ instanceCount: FIRST_PICTURE_INSTANCES }])).toBe(true);
    expect(instancesInFirstPicture([{ instanceCount: FIRST_PICTURE_INSTANCES - 1 }, { instanceCount: 2 }])).toBe(false);
    expect(instancesInFirstPicture([{ instanceCount: 1_000_000 }])).toBe(false);
  });

  it('a group that does not say how many it holds may hold a million: after the first picture', () => {
    expect(instancesInFirstPicture([{ instanceCount: 3 }, {}])).toBe(false);
  });
});

