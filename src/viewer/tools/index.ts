import type { Vector3 } from 'three';
import type { ViewerWorld } from '../../engine/world';
import type { Emitter, ViewerEventMap } from '../events';
import type { Picker } from '../pick-types';
import { toHitEventData } from '../picking';
import { createToolContext } from './context';
import { attachPointerInput, type CameraInput, type KeyAction } from './input';
import { clickTarget, samplingStaysArmed } from './click-routing';
import { createLabelLayer } from './labels';
import type { MeasureKind } from './measure-machine';
import { createMeasurements, type MeasurementInfo, type Measurements } from './measurements';
import { createSampler, type Sampler } from './sampler';
import { createSections, type GizmoMode, type SectionInfo, type Sections } from './section';
import { createSnapMarker } from './snap-marker';
import { createToolManager, type ToolName } from './tool-manager';

export { TOOL_NAMES, type ToolName } from './tool-manager';
export type { GizmoMode, MeasurementInfo, SectionInfo };

/** Everything the UI shows of the tools; a new object after every change (useSyncExternalStore). */
export interface ToolsSnapshot {
  active: ToolName | null;
  /** What to do next ('Click the first point', 'Press Enter to finish', ...). */
  hint: string;
  /** Why the last action was refused (an off-plane point, ...), or null. */
  feedback: string | null;
  measurements: readonly (MeasurementInfo & { selected: boolean })[];
  sections: readonly (SectionInfo & { selected: boolean })[];
  gizmoMode: GizmoMode;
  /** The sampled point's label, or null. */
  sample: string | null;
  /** Points of the measurement in progress (the panel's Finish and Undo buttons). */
  draftPoints: number;
  /** The 'Sample point' toggle is on: the next click or tap samples a point. */
  sampling: boolean;
}

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
  getSnapshot(): ToolsSnapshot;
  subscribe(listener: () => void): () => void;
  readonly measurements: Measurements;
  readonly sections: Sections;
  readonly sampler: Sampler;
  dispose(): void;
}

/** camera-controls as the tools use it: on/off for handle drags and its 'update' event. */
export interface ToolCameraControls extends CameraInput {
  addEventListener(type: 'update', listener: () => void): void;
  removeEventListener(type: 'update', listener: () => void): void;
}

export interface ToolsOptions {
  world: ViewerWorld;
  /** The viewer's container: the canvas's parent, which receives pointer input. */
  container: HTMLElement;
  events: Emitter<ViewerEventMap>;
  picker: () => Picker | null;
  controls: ToolCameraControls;
  /** Double-click outside the section tool: recentre the camera target on the point. */
  recentre: (point: Vector3) => void;
}

const KIND_OF: Partial<Record<ToolName, MeasureKind>> = {
  'length-measure-tool': 'length',
  'area-measure-tool': 'area',
  'angle-measure-tool': 'angle',
};

/**
 * The viewer's interactive tools: pointer input (click, drag, double-click, Shift+click, keys),
 * the tool manager, measurements, section planes and the point sampler. Without an active tool a
 * click picks and raises 'hit' or 'background-hit', a double-click recentres the camera.
 */
export function createTools(options: ToolsOptions): ViewerTools {
  const listeners = new Set<() => void>();
  let snapshot: ToolsSnapshot | null = null;
  let notifyQueued = false;
  const changed = () => {
    snapshot = null;
    if (notifyQueued) return;
    notifyQueued = true;
    queueMicrotask(() => {
      notifyQueued = false;
      for (const listener of [...listeners]) listener();
    });
  };

  const labels = createLabelLayer(options.container, options.world.render.renderer?.domElement ?? null);
  const ctx = createToolContext({
    world: options.world,
    container: options.container,
    labels,
    events: options.events,
    picker: options.picker,
    changed,
  });
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
      options.events.emit('tool', { tool, previous });
      changed();
    },
  );

  const kindOfActive = () => (manager.active ? (KIND_OF[manager.active] ?? null) : null);
  let grabbed: 'section' | 'measurement' | null = null;
  let sampling = false;
  const setSampling = (on: boolean) => {
    if (typeof on !== 'boolean') throw new Error(`setSampling expects true or false (got ${String(on)}).`);
    if (sampling === on) return;
    sampling = on;
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

  const onKey = (action: KeyAction): boolean => {
    const active = manager.active;
    const kind = kindOfActive();
    switch (action) {
      case 'escape':
        if (sampling) {
          setSampling(false);
          return true;
        }
        if (kind) {
          if (!measurements.cancel()) manager.deactivate();
          return true;
        }
        if (active === 'section-tool') {
          if (sections.placing) sections.remove(sections.selected);
          else if (sections.selected) sections.select(0);
          else manager.deactivate();
          return true;
        }
        if (sampler.clear()) return true;
        if (measurements.selected) {
          measurements.select(0);
          return true;
        }
        if (sections.selected) {
          sections.select(0);
          return true;
        }
        return false;
      case 'delete':
        return deleteSelected();
      case 'enter':
        if (kind) return measurements.finish();
        if (active === 'section-tool' && sections.placing) {
          sections.confirm();
          return true;
        }
        return false;
      case 'undo':
        return kind ? measurements.undo() : false;
    }
  };

  const pickAndEmit = (clientX: number, clientY: number) => {
    // Section caps too: a click on a cut face is a hit on the cut node (the picker alone would pass
    // through the cap to whatever lies behind it).
    const hit = ctx.surfaces.pickAtClient(clientX, clientY);
    if (hit) options.events.emit('hit', toHitEventData(hit));
    else options.events.emit('background-hit', { clientX, clientY });
  };

  const input = attachPointerInput(options.container, ctx.renderer.domElement, () => options.controls, {
    grab(x, y) {
      if (sections.grab(x, y)) {
        grabbed = 'section';
        return true;
      }
      if (measurements.grab(x, y)) {
        grabbed = 'measurement';
        return true;
      }
      return false;
    },
    drag(x, y) {
      if (grabbed === 'measurement') measurements.drag(x, y);
    },
    release() {
      if (grabbed === 'measurement') measurements.release();
      else if (grabbed === 'section') sections.release();
      grabbed = null;
    },
    click(x, y) {
      sections.clearFeedback();
      const target = clickTarget(false, sampling, manager.active);
      if (target === 'sampler') {
        setSampling(samplingStaysArmed(sampler.sampleAt(x, y) !== null));
        return;
      }
      if (target === 'measurement') {
        measurements.click(x, y);
        return;
      }
      if (target === 'section') {
        if (!sections.selectAt(x, y)) {
          if (sections.placing) sections.confirm();
          else if (sections.selected) sections.select(0);
        }
        return;
      }
      if (measurements.selectAt(x, y)) return;
      if (sections.selected) sections.select(0);
      pickAndEmit(x, y);
    },
    shiftClick(x, y) {
      sampler.sampleAt(x, y);
    },
    doubleClick(x, y) {
      const kind = kindOfActive();
      if (manager.active === 'section-tool') {
        sections.createAt(x, y);
        return;
      }
      if (kind) {
        // The double-click's clicks already added a point (the second one is refused as the same
        // point); on an area it also finishes it.
        if (kind === 'area') measurements.finish();
        return;
      }
      const hit = ctx.surfaces.pickAtClient(x, y);
      if (hit) options.recentre(hit.point);
    },
    hover(x, y) {
      if (kindOfActive()) measurements.hover(x, y);
    },
    leave() {
      if (kindOfActive()) measurements.leave();
    },
    key: onKey,
  });

  // Labels follow the camera: camera-controls reports every change of the view.
  // camera-controls reports after moving the camera, before this frame is drawn: the labels move
  // now, in step with the picture.
  const onCameraUpdate = () => {
    sections.syncCamera();
    const camera = options.world.render.camera;
    if (camera) labels.update(camera);
  };
  options.controls.addEventListener('update', onCameraUpdate);
  const resizeObserver = new ResizeObserver(() => ctx.redraw());
  resizeObserver.observe(options.container);

  const hint = (): string => {
    const active = manager.active;
    if (sampling) return 'Click or tap a point to read its coordinates';
    if (kindOfActive()) return measurements.hint();
    if (active === 'section-tool') {
      if (sections.placing) return 'Drag the arrow to push the plane into the model; Enter keeps it, Escape cancels';
      if (sections.selected) return 'Drag the gizmo to move or tilt the plane; Delete removes it';
      return 'Double-click a surface to place a section plane';
    }
    return 'Shift + click a point to read its coordinates';
  };

  return {
    get active() {
      return manager.active;
    },
    activate: (name) => manager.activate(name),
    deactivate: () => manager.deactivate(),
    toggle: (name) => manager.toggle(name),
    deleteSelected,
    setSampling,
    getSnapshot() {
      if (!snapshot) {
        const selectedMeasurement = measurements.selected;
        const selectedSection = sections.selected;
        snapshot = {
          active: manager.active,
          hint: hint(),
          feedback: measurements.feedback ?? sections.feedback ?? sampler.feedback,
          measurements: measurements.list().map((m) => ({ ...m, selected: m.id === selectedMeasurement })),
          sections: sections.list().map((s) => ({ ...s, selected: s.id === selectedSection })),
          gizmoMode: sections.gizmoMode,
          sample: sampler.current?.label ?? null,
          draftPoints: measurements.draftCount(),
          sampling,
        };
      }
      return snapshot;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    measurements,
    sections,
    sampler,
    dispose() {
      input.dispose();
      resizeObserver.disconnect();
      options.controls.removeEventListener('update', onCameraUpdate);
      manager.deactivate();
      measurements.dispose();
      sections.dispose();
      sampler.dispose();
      marker.dispose();
      ctx.helpers.removeFromParent();
      labels.dispose();
      listeners.clear();
    },
  };
}
