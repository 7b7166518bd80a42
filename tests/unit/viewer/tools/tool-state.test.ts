import { describe, expect, it } from 'vitest';
import { DEFAULT_DISPLAY } from '../../../../src/viewer/tools/format';
import { toolHint, touchWording, type ToolParts } from '../../../../src/viewer/tools/tool-state';

function parts(patch: { active?: string | null; kind?: string | null; measureHint?: string; placing?: boolean; selected?: number; mode?: 'translate' | 'rotate'; touch?: boolean; sampling?: boolean }): ToolParts {
  return {
    manager: { active: patch.active ?? null },
    measurements: { kind: patch.kind ?? null, hint: () => patch.measureHint ?? '' },
    sections: { placing: patch.placing ?? false, selected: patch.selected ?? 0, gizmoMode: patch.mode ?? 'translate' },
    sampler: {},
    sampling: patch.sampling ?? false,
    touch: patch.touch ?? false,
    display: { ...DEFAULT_DISPLAY },
  } as unknown as ToolParts;
}

describe('tool hints', () => {
  it('speaks of taps on touch screens and of keys on desktops', () => {
    expect(toolHint(parts({}))).toBe('Shift + click a point to read its coordinates');
    expect(toolHint(parts({ touch: true }))).toBe('Tap Sample point, then the model, to read a point’s coordinates');
    expect(toolHint(parts({ touch: true, sampling: true }))).toBe('Tap a point to read its coordinates');
    expect(toolHint(parts({ kind: 'area', measureHint: 'Click another point, or press Enter to finish', touch: true }))).toBe('Tap another point, or tap Finish');
    expect(toolHint(parts({ active: 'section-tool', placing: true, selected: 3, touch: true }))).not.toMatch(/Enter|Escape|click/i);
    expect(toolHint(parts({ active: 'section-tool', placing: true, selected: 3 }))).toContain('Enter keeps it');
  });

  it('says what the section gizmo does in its mode', () => {
    expect(toolHint(parts({ active: 'section-tool', placing: true, selected: 3, mode: 'translate' }))).toMatch(/^Drag the arrow/);
    expect(toolHint(parts({ active: 'section-tool', placing: true, selected: 3, mode: 'rotate' }))).toMatch(/^Drag a ring to tilt the plane in 15° steps \(hold Shift/);
    expect(toolHint(parts({ active: 'section-tool', selected: 3, mode: 'rotate', touch: true }))).toBe('Drag a ring to tilt the plane in 15° steps');
    expect(toolHint(parts({ active: 'section-tool' }))).toBe('Double-click a surface to place a section plane');
    expect(toolHint(parts({ active: 'section-tool', touch: true }))).toBe('Double-tap a surface to place a section plane');
  });

  it('rewrites click words only', () => {
    expect(touchWording('Click the first point on a flat surface')).toBe('Tap the first point on a flat surface');
    expect(touchWording('Clicked')).toBe('Clicked');
  });
});
