import type { DisplayUnits } from './format';
import type { MeasurementInfo, Measurements } from './measurements';
import type { Sampler } from './sampler';
import type { GizmoMode, SectionInfo, Sections } from './section';
import type { ToolManager, ToolName } from './tool-manager';

/** Everything the UI shows of the tools: a new object after every change (sent as the 'tools' event). */
export interface ToolsSnapshot {
  active: ToolName | null;
  /** What to do next ('Click the first point', 'Press Enter to finish', ...), in touch wording on touch screens. */
  hint: string;
  /** Why the last action was refused (an off-plane point, a miss, ...), or null; cleared by the next action. */
  feedback: string | null;
  measurements: readonly (MeasurementInfo & { selected: boolean })[];
  sections: readonly (SectionInfo & { selected: boolean })[];
  gizmoMode: GizmoMode;
  /** A new section plane waits to be kept (Enter, a click elsewhere, the panel's Done). */
  placing: boolean;
  /** The sampled point's label, or null. */
  sample: string | null;
  /** Points of the measurement in progress (the panel's Finish and Undo buttons). */
  draftPoints: number;
  /** The 'Sample point' toggle is on: the next click or tap samples a point. */
  sampling: boolean;
  /** The last pointer was a finger or pen without hover: hints speak of taps. */
  touch: boolean;
  /** Unit, precision and up axis of the shown values. */
  display: DisplayUnits;
}

/** The tools' parts that the state, the keys and the pointer routing read. */
export interface ToolParts {
  readonly manager: ToolManager;
  readonly measurements: Measurements;
  readonly sections: Sections;
  readonly sampler: Sampler;
  /** The 'Sample point' toggle. */
  sampling: boolean;
  /** Touch wording (the last pointer was touch). */
  touch: boolean;
  readonly display: DisplayUnits;
}

/** A desktop hint in touch words: 'Click' becomes 'Tap', Enter becomes the panel's Finish. */
export function touchWording(text: string): string {
  return text
    .replace(/\bClick\b/g, 'Tap')
    .replace(/\bclick\b/g, 'tap')
    .replace(/press Enter to finish/g, 'tap Finish');
}

export function toolHint(parts: ToolParts): string {
  const { manager, measurements, sections } = parts;
  const touch = parts.touch;
  if (parts.sampling) return touch ? 'Tap a point to read its coordinates' : 'Click a point to read its coordinates';
  if (measurements.kind) return touch ? touchWording(measurements.hint()) : measurements.hint();
  if (manager.active === 'section-tool') {
    const rotate = sections.gizmoMode === 'rotate';
    if (sections.selected && rotate) {
      return touch ? 'Drag a ring to tilt the plane in 15° steps' : 'Drag a ring to tilt the plane in 15° steps (hold Shift to turn freely)';
    }
    if (sections.placing) {
      return touch
        ? 'Drag the arrow to push the plane into the model, then tap Done'
        : 'Drag the arrow to push the plane into the model; Enter keeps it, Escape cancels';
    }
    if (sections.selected) return touch ? 'Drag the arrow to move the plane; Tilt turns it' : 'Drag the arrow to move the plane; Tilt turns it; Delete removes it';
    return touch ? 'Double-tap a surface to place a section plane' : 'Double-click a surface to place a section plane';
  }
  return touch ? 'Tap Sample point, then the model, to read a point’s coordinates' : 'Shift + click a point to read its coordinates';
}

export function toolsSnapshot(parts: ToolParts): ToolsSnapshot {
  const { manager, measurements, sections, sampler } = parts;
  const selectedMeasurement = measurements.selected;
  const selectedSection = sections.selected;
  return {
    active: manager.active,
    hint: toolHint(parts),
    feedback: measurements.feedback ?? sections.feedback ?? sampler.feedback,
    measurements: measurements.list().map((m) => ({ ...m, selected: m.id === selectedMeasurement })),
    sections: sections.list().map((s) => ({ ...s, selected: s.id === selectedSection })),
    gizmoMode: sections.gizmoMode,
    placing: sections.placing,
    sample: sampler.current?.label ?? null,
    draftPoints: measurements.draftCount(),
    sampling: parts.sampling,
    touch: parts.touch,
    display: { ...parts.display },
  };
}
