import type { Vector3 } from 'three';
import type { ViewerWorld } from '../../engine/world';
import type { Emitter, ViewerEventMap } from '../events';
import type { Keyboard } from '../input/keyboard';
import type { PointerRouter } from '../input/pointer-router';
import type { Picker } from '../pick-types';
import { createToolContext } from './context';
import { mergeDisplay, type DisplayUnits } from './format';
import { createLabelLayer, type LabelLayer } from './labels';
import type { MeasureKind } from './measure-machine';
import type { Magnifier } from './magnifier';
import { createMeasurements, type Measurements } from './measurements';
import { createSampler, type Sampler } from './sampler';
import { createSections, type Sections } from './section';
import { createSnapMarker } from './snap-marker';
import { bindToolKeys } from './tool-keys';
import { createToolManager, type ToolName } from './tool-manager';
import { toolPointerHandlers } from './tool-pointer';
import { toolsSnapshot, type ToolParts, type ToolsSnapshot } from './tool-state';

export interface ViewerTools {
  readonly active: ToolName | null;
  /** Turns a tool on ('section-tool', 'length-measure-tool', 'area-measure-tool', 'angle-measure-tool'). */
  activate(name: string): void;
  deactivate(): void;
  toggle(name: string): boolean;
  /** Deletes the selected measurement or section plane; false when nothing is selected. */
  deleteSelected(): boolean;
  /**
   * The 'Sample point' toggle (touch screens cannot Shift+click): while on, the next click or tap
   * samples a point, whatever tool is active, then the toggle turns itself off.
   */
  setSampling(on: boolean): void;
  /**
   * How values are shown: unit ('m', 'cm', 'mm', 'ft-in'), precision and the up axis of displayed
   * coordinates ('y' as stored, or 'z'). Stored values stay metres, Y up. Throws on a bad field;
   * returns the settings in effect. Every label is rewritten.
   */
  setDisplay(patch: Partial<DisplayUnits>): DisplayUnits;
  /**
   * A handler offered every click before the tools and the scene (comment pins and the comment
   * tool, src/viewer/comments): it returns true when it took the click. null removes it.
   */
  setClickHook(hook: ((clientX: number, clientY: number) => boolean) | null): void;
  /** The labels pinned to world points (measurement values, the sampled point): screenshots draw them. */
  readonly labels: LabelLayer;
  /** What the UI shows; the same object is sent as the 'tools' event after every change. */
  getSnapshot(): ToolsSnapshot;
  readonly measurements: Measurements;
  readonly sections: Sections;
  readonly sampler: Sampler;
  dispose(): void;
}

export interface ToolsOptions {
  world: ViewerWorld;
  /** The viewer's container: the canvas's parent (labels, the loupe). */
  container: HTMLElement;
  /** The viewer's pointer router: the tools take its 'section-gizmo' and 'tool' slots. */
  pointer: PointerRouter;
  events: Emitter<ViewerEventMap>;
  picker: () => Picker | null;
  /** The viewer's keyboard: the tools take their entries of the key map. */
  keyboard: Keyboard;
  /** Double-click outside the section tool: recentre the camera target on the point. */
  recentre: (point: Vector3) => void;
}

/**
 * The viewer's interactive tools, composed: the tool manager, measurements, section planes and the
 * point sampler on a shared context (context.ts), their pointer handlers in the viewer's router (tool-pointer.ts) and keys
 * (tool-keys.ts). Without an active tool a click picks and raises 'hit' or 'background-hit', a
 * double-click recentres the camera. Every change is sent as a 'tools' event with the snapshot
 * (tool-state.ts), coalesced to one per task.
 */
export function createTools(options: ToolsOptions): ViewerTools {
  let snapshot: ToolsSnapshot | null = null;
  let clickHook: ((clientX: number, clientY: number) => boolean) | null = null;
  let notifyQueued = false;
  const changed = () => {
    snapshot = null;
    if (notifyQueued) return;
    notifyQueued = true;
    queueMicrotask(() => {
      notifyQueued = false;
      options.events.emit('tools', api.getSnapshot());
    });
  };

  const labels = createLabelLayer(options.container, options.world.render.renderer?.domElement ?? null);
  const ctx = createToolContext({ world: options.world, container: options.container, labels, events: options.events, picker: options.picker, changed });
  const marker = createSnapMarker();
  ctx.helpers.add(marker.object);

  // One selection across measurements and planes.
  const measurements: Measurements = createMeasurements(ctx, marker, () => sections.selected && sections.select(0));
  const sections: Sections = createSections(ctx, () => measurements.selected && measurements.select(0));
  const sampler = createSampler(ctx);

  const measureTool = (kind: MeasureKind) => ({
    activate: () => measurements.begin(kind),
    deactivate: () => measurements.end(),
  });
  const manager = createToolManager(
    {
      'section-tool': { activate: () => sections.setActive(true), deactivate: () => sections.setActive(false) },
      'length-measure-tool': measureTool('length'),
      'area-measure-tool': measureTool('area'),
      'angle-measure-tool': measureTool('angle'),
    },
    (tool, previous) => {
      // A new tool starts clean: the last refusal or miss goes.
      sections.clearFeedback();
      sampler.clearFeedback();
      options.events.emit('tool', { tool, previous });
      changed();
    },
  );

  // Touch wording when the screen has no hover and a coarse pointer, then after each press by its kind.
  const coarse = typeof window !== 'undefined' && !!window.matchMedia?.('(hover: none) and (pointer: coarse)').matches;
  const parts: ToolParts = { manager, measurements, sections, sampler, sampling: false, touch: coarse, display: ctx.display };
  // A loupe above a finger that places a point (a measurement tool, or Sample point). Its code is
  // a chunk fetched at once where there is a touch screen, elsewhere at the first touch (a mouse
  // never needs it). A failed download is tried once more at the next touch (browsers that keep a
  // failed import answer the same failure), and said once: placing points works without the loupe.
  let magnifier: Magnifier | null = null;
  let magnifierLoading: Promise<void> | null = null;
  let magnifierTries = 0;
  let disposed = false;
  const wantMagnifier = () => {
    if (magnifierLoading || magnifierTries >= 2) return;
    magnifierTries++;
    magnifierLoading = import('./magnifier').then(
      ({ createMagnifier }) => {
        if (!disposed) magnifier = createMagnifier(options.world, options.container, ctx.renderer.domElement, options.pointer, () => parts.sampling || measurements.kind !== null);
      },
      (error: unknown) => {
        if (magnifierTries >= 2) console.warn('The touch magnifier could not be loaded (points are placed without it):', error);
        magnifierLoading = null;
      },
    );
  };
  if (coarse || (typeof navigator !== 'undefined' && navigator.maxTouchPoints > 0)) wantMagnifier();
  // Every press in the container, the panels' too, tells the pointer's kind.
  const onPointerKind = (kind: string) => {
    if (kind === 'touch') wantMagnifier();
    const touch = kind === 'touch' || (kind === 'pen' && coarse);
    if (touch === parts.touch) return;
    parts.touch = touch;
    changed();
  };
  const setSampling = (on: boolean) => {
    if (typeof on !== 'boolean') throw new Error(`setSampling expects true or false (got ${String(on)}).`);
    if (parts.sampling === on) return;
    parts.sampling = on;
    if (on) {
      measurements.clearFeedback();
      sections.clearFeedback();
    }
    changed();
  };
  const deleteSelected = (): boolean => {
    if (measurements.selected) {
      measurements.remove(measurements.selected);
      return true;
    }
    if (sections.selected) {
      sections.remove(sections.selected);
      return true;
    }
    return false;
  };

  const unbindKeys = bindToolKeys(options.keyboard, parts, setSampling, deleteSelected);
  const removeSectionGizmo = options.pointer.add('section-gizmo', sections.pointer);
  const removePointer = options.pointer.add('tool', {
    ...toolPointerHandlers(parts, { events: options.events, surfaces: ctx.surfaces, setSampling, recentre: options.recentre, clickHook: () => clickHook }),
    watch(phase, sample) {
      if (phase === 'down') onPointerKind(sample.kind);
    },
  });
  const resizeObserver = new ResizeObserver(() => ctx.redraw());
  resizeObserver.observe(options.container);

  const api: ViewerTools = {
    get active() {
      return manager.active;
    },
    activate: (name) => manager.activate(name),
    deactivate: () => manager.deactivate(),
    toggle: (name) => manager.toggle(name),
    deleteSelected,
    setSampling,
    setClickHook(hook) {
      clickHook = hook;
    },
    setDisplay(patch) {
      const next = mergeDisplay(ctx.display, patch ?? {});
      Object.assign(ctx.display, next);
      measurements.relabel();
      sampler.relabel();
      changed();
      return { ...ctx.display };
    },
    labels,
    getSnapshot() {
      return (snapshot ??= toolsSnapshot(parts));
    },
    measurements,
    sections,
    sampler,
    dispose() {
      removePointer();
      removeSectionGizmo();
      disposed = true;
      magnifier?.dispose();
      unbindKeys();
      resizeObserver.disconnect();
      manager.deactivate();
      measurements.dispose();
      sections.dispose();
      sampler.dispose();
      marker.dispose();
      ctx.dispose();
      labels.dispose();
    },
  };
  return api;
}
