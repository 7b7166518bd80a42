/**
 * The engine's instanced groups for bench/instances-render.ts's 'culled' and 'culledfull' modes
 * (the assets as the viewer makes them from their GLBs, levels and impostor included): bundled with three
 * left to the page's import map (instancesEngineBundle), so the page draws with the very code the
 * viewer draws with.
 */
export { rebuildBounds, createInstanceGroup } from '../src/engine/instances';
export { addViewerEntity, createViewerWorld } from '../src/engine/world';
export { bindObject } from '../src/engine/registry';
export { setLevelView } from '../src/engine/instance-levels';
export { assetFromGltf } from '../src/scene/instance-asset-gltf';
