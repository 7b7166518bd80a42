import type { Vector3 } from 'three';
import type { Emitter, ViewerEventMap } from '../events';
import type { PointerHandler } from '../input/pointer-router';
import { toHitEventData } from '../picking';
import { clickTarget, samplingStaysArmed } from './click-routing';
import type { SurfacePicker } from './surface-picker';
import type { ToolParts } from './tool-state';

/**
 * Where pointer input goes among the tools (the router's 'tool' slot; the section gizmo's handles
 * have their own slot above it): a press on a measurement point drags it; a click goes to the sampler, the active tool or the scene (select a measurement,
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
): PointerHandler {
  const { manager, measurements, sections, sampler } = parts;
  let grabbed = false;

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
      grabbed = measurements.grab(x, y);
      return grabbed;
    },
    drag(x, y) {
      if (grabbed) measurements.drag(x, y);
    },
    release() {
      if (grabbed) measurements.release();
      grabbed = false;
    },
    // The tools take every click: the scene's pick is the last of them.
    click(x, y) {
      clearFeedback();
      if (!parts.sampling && options.clickHook?.()?.(x, y)) return true;
      const target = clickTarget(false, parts.sampling, manager.active);
      if (target === 'sampler') {
        options.setSampling(samplingStaysArmed(sampler.sampleAt(x, y) !== null));
        return true;
      }
      if (target === 'measurement') {
        measurements.click(x, y);
        return true;
      }
      if (target === 'section') {
        if (!sections.selectAt(x, y)) {
          if (sections.placing) sections.confirm();
          else if (sections.selected) sections.select(0);
        }
        return true;
      }
      if (measurements.selectAt(x, y)) return true;
      if (sections.selected) sections.select(0);
      pickAndEmit(x, y);
      return true;
    },
    shiftClick(x, y) {
      clearFeedback();
      sampler.sampleAt(x, y);
      return true;
    },
    doubleClick(x, y) {
      if (manager.active === 'section-tool') clearFeedback();
      if (manager.active === 'section-tool') {
        sections.createAt(x, y);
        return true;
      }
      if (measurements.kind) {
        // The double-click's clicks already added a point (the second one is refused as the same
        // point); on an area it also finishes it.
        if (measurements.kind === 'area') measurements.finish();
        return true;
      }
      const hit = options.surfaces.pickAtClient(x, y);
      if (hit) options.recentre(hit.point);
      return true;
    },
    hover(x, y) {
      if (measurements.kind) measurements.hover(x, y);
    },
    leave() {
      if (measurements.kind) measurements.leave();
    },
  };
}
