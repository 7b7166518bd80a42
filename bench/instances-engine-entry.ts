/**
 * The engine's instanced groups for bench/instances-render.ts's 'culled' mode: bundled with three
 * left to the page's import map (instancesEngineBundle), so the page draws with the very code the
 * viewer draws with.
 */
export { rebuildBounds, createInstanceGroup } from '../src/engine/instances';
export { addViewerEntity, createViewerWorld } from '../src/engine/world';
export { bindObject } from '../src/engine/registry';
