import type { MeasurementInfo, Measurements } from './measurements';
import type { Sampler } from './sampler';
import type { GizmoMode, SectionInfo, Sections } from './section';
import type { ToolManager, ToolName } from './tool-manager';

/** Everything the UI shows of the tools: a new object after every change (sent as the 'tools' event). */
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

/** The tools' parts that the state, the keys and the pointer routing read. */
export interface ToolParts {
  readonly manager: ToolManager;
  readonly measurements: Measurements;
  readonly sections: Sections;
  readonly sampler: Sampler;
  /** The 'Sample point' toggle. */
  sampling: boolean;
}

export function toolHint(parts: ToolParts): string {
  const { manager, measurements, sections } = parts;
  if (parts.sampling) return 'Click or tap a point to read its coordinates';
  if (measurements.kind) return measurements.hint();
  if (manager.active === 'section-tool') {
    if (sections.placing) return 'Drag the arrow to push the plane into the model; Enter keeps it, Escape cancels';
    if (sections.selected) return 'Drag the gizmo to move or tilt the plane; Delete removes it';
    return 'Double-click a surface to place a section plane';
  }
  return 'Shift + click a point to read its coordinates';
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
    sample: sampler.current?.label ?? null,
    draftPoints: measurements.draftCount(),
    sampling: parts.sampling,
  };
}
