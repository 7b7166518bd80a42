import { findAnimation } from '../animation';
import { applySceneSettings, readSceneSettings } from '../scene-settings';
import type { ApiContext, Impl } from '../viewer-api';

type SceneFunctions = Pick<
  Impl,
  | 'getPostProcessing'
  | 'setPostProcessing'
  | 'getQuality'
  | 'setQuality'
  | 'getSceneSettings'
  | 'setSceneSettings'
  | 'setSun'
  | 'setFog'
  | 'setShadowPlane'
  | 'setWater'
  | 'setBackground'
  | 'setEnvironment'
  | 'listAnimations'
  | 'playAnimation'
  | 'pauseAnimation'
  | 'resumeAnimation'
  | 'stopAnimation'
  | 'seekAnimation'
  | 'setAnimationSpeed'
>;

/**
 * The host API's scene as a whole: its settings (sun, fog, shadow plane, water, background,
 * environment: one patch through applySceneSettings), post-processing, the quality tier, and the
 * models' animations through the viewer's animation control.
 */
export function createSceneFunctions(ctx: ApiContext): SceneFunctions {
  const { viewer, world, lookups } = ctx;
  const settings = (patch: Record<string, unknown>) => applySceneSettings(viewer, patch).then(() => readSceneSettings(viewer));
  const animationRow = (modelId: string, animation: string) => {
    const rec = lookups.record(modelId);
    const entry = findAnimation(rec, animation);
    const row = viewer.animations.list().find((r) => r.modelId === modelId && r.id === entry.id)!;
    return { modelId: row.modelId, id: row.id, name: row.name, duration: row.duration, status: row.status, time: row.time, loop: row.loop };
  };
  return {
    getPostProcessing: () => viewer.getRenderConfig(),
    setPostProcessing: ({ config }) => {
      viewer.setRenderConfig(config);
      world.render.needsRender = true;
      return viewer.getRenderConfig();
    },
    getQuality: () => ({ tier: viewer.quality.settings.tier, forced: viewer.quality.forced, postprocessing: viewer.quality.settings.postProcessing }),
    setQuality: async ({ tier }) => {
      const s = await viewer.setQuality(tier);
      return { tier: s.tier, forced: tier !== 'auto', postprocessing: s.postProcessing };
    },
    getSceneSettings: () => readSceneSettings(viewer),
    setSceneSettings: ({ settings: patch }) => settings(patch),
    setSun: (patch) => settings(patch),
    setFog: (patch) => settings(patch),
    setShadowPlane: (patch) => settings(patch),
    setWater: (patch) => settings(patch),
    setBackground: (patch) => settings(patch),
    setEnvironment: (patch) => settings(patch),
    listAnimations: () =>
      viewer.animations.list().map((r) => ({ modelId: r.modelId, id: r.id, name: r.name, duration: r.duration, status: r.status, time: r.time, loop: r.loop })),
    playAnimation: ({ modelId, animation, loop, time }) => {
      viewer.animations.play(modelId, animation, { loop, time });
      return animationRow(modelId, animation);
    },
    pauseAnimation: ({ modelId, animation }) => {
      viewer.animations.pause(modelId, animation);
      return animationRow(modelId, animation);
    },
    resumeAnimation: ({ modelId, animation }) => {
      viewer.animations.resume(modelId, animation);
      return animationRow(modelId, animation);
    },
    stopAnimation: ({ modelId, animation }) => {
      viewer.animations.stop(modelId, animation);
      return animationRow(modelId, animation);
    },
    seekAnimation: ({ modelId, animation, time }) => {
      const rec = lookups.record(modelId);
      const entry = findAnimation(rec, animation);
      if (!entry.action) {
        // Never played: start it there and hold it.
        viewer.animations.play(modelId, animation, { time });
        viewer.animations.pause(modelId, animation);
      } else {
        entry.action.time = Math.max(0, Math.min(time, entry.clip.duration));
        rec.mixer?.update(0);
        rec.syncPose = true;
      }
      world.render.needsRender = true;
      return animationRow(modelId, animation);
    },
    setAnimationSpeed: ({ speed }) => ({ speed: viewer.animations.setSpeed(speed) }),
  };
}
