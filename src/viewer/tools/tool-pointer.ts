import type { Vector3 } from 'three';
import type { Emitter, ViewerEventMap } from '../events';
import type { PointerHandlers } from '../input/pointer';
import { toHitEventData } from '../picking';
import { clickTarget, samplingStaysArmed } from './click-routing';
import type { SurfacePicker } from './surface-picker';
import type { ToolParts } from './tool-state';

/**
 * Where pointer input goes among the tools: a press on a handle (the section gizmo, a measurement
 * point) drags it; a click goes to the sampler, the active tool or the scene (select a measurement,
 * or pick and raise 'hit' / 'background-hit'); a double-click creates a plane, finishes an area or
 * recentres the camera; hovering feeds the measurement tool's marker and rubber band.
 */
export function toolPointerHandlers(
  parts: ToolParts,
  options: {
    events: Emitter<ViewerEventMap>;
    surfaces: SurfacePicker;
    setSampling: (on: boolean) => void;
    recentre: (point: Vector3) => void;
    /** Offered every click first (comment pins, the comment tool): true when it took the click. */
    clickHook?: () => ((clientX: number, clientY: number) => boolean) | null;
  },
): PointerHandlers {
  const { manager, measurements, sections, sampler } = parts;
  let grabbed: 'section' | 'measurement' | null = null;

  /** A new action starts: the last refusal or miss goes (the action sets its own if it fails too). */
  const clearFeedback = () => {
    measurements.clearFeedback();
    sections.clearFeedback();
    sampler.clearFeedback();
  };

  const pickAndEmit = (clientX: number, clientY: number) => {
    // Section caps too: a click on a cut face is a hit on the cut node (the picker alone would pass
    // through the cap to whatever lies behind it).
    const hit = options.surfaces.pickAtClient(clientX, clientY);
    if (hit) options.events.emit('hit', toHitEventData(hit));
    else options.events.emit('background-hit', { clientX, clientY });
  };

  return {
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
      clearFeedback();
      if (!parts.sampling && options.clickHook?.()?.(x, y)) return;
      const target = clickTarget(false, parts.sampling, manager.active);
      if (target === 'sampler') {
        options.setSampling(samplingStaysArmed(sampler.sampleAt(x, y) !== null));
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
      clearFeedback();
      sampler.sampleAt(x, y);
    },
    doubleClick(x, y) {
      if (manager.active === 'section-tool') clearFeedback();
      if (manager.active === 'section-tool') {
        sections.createAt(x, y);
        return;
      }
      if (measurements.kind) {
        // The double-click's clicks already added a point (the second one is refused as the same
        // point); on an area it also finishes it.
        if (measurements.kind === 'area') measurements.finish();
        return;
      }
      const hit = options.surfaces.pickAtClient(x, y);
      if (hit) options.recentre(hit.point);
    },
    hover(x, y) {
      if (measurements.kind) measurements.hover(x, y);
    },
    leave() {
      if (measurements.kind) measurements.leave();
    },
  };
}
