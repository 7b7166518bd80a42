import { Color, Group, Mesh, Object3D, Plane, Vector3 } from 'three';
import { LineMaterial } from 'three/examples/jsm/lines/LineMaterial.js';
import { describe, expect, it, vi } from 'vitest';
import { createViewerWorld } from '../../../../src/engine/world';
import type { ToolContext } from '../../../../src/viewer/tools/context';
import { createCapMaterial } from '../../../../src/viewer/tools/helper-materials';
import { CAP_REBUILD_MS, createSectionCaps, cutOutline, type PlaneEntry } from '../../../../src/viewer/tools/section-caps';

function stage() {
  const world = createViewerWorld();
  const renderer = { clippingPlanes: [] as Plane[] };
  const published: unknown[][] = [];
  const ctx = {
    world,
    renderer,
    picker: () => ({}),
    setCaps: (parts: unknown[]) => void published.push(parts),
    redraw: vi.fn(),
    changed: vi.fn(),
  } as unknown as ToolContext;
  const entries = new Map<number, PlaneEntry>();
  const entry = (eid: number) => {
    const e = {
      eid,
      number: eid,
      plane: new Plane(new Vector3(0, 1, 0), -eid),
      pivot: new Object3D(),
      caps: new Group(),
      capMaterials: new Map(),
      capLineMaterials: new Map(),
      capArea: 7,
      capParts: [],
    } as unknown as PlaneEntry;
    entries.set(eid, e);
    return e;
  };
  return { ctx, renderer, entries, entry, published, caps: createSectionCaps(ctx, entries) };
}

describe('section caps (src/viewer/tools/section-caps.ts)', () => {
  it('clips the renderer with one plane per section, each cap material skipping its own', () => {
    const s = stage();
    const a = s.entry(1);
    const b = s.entry(2);
    const capA = createCapMaterial(new Color(0xff0000));
    const capB = createCapMaterial(new Color(0x00ff00));
    a.capMaterials.set(0xff0000, capA);
    b.capMaterials.set(0x00ff00, capB);
    s.caps.syncClipping();
    expect(s.renderer.clippingPlanes).toEqual([a.plane, b.plane]);
    expect(capA.userData.skipPlane.value).toBe(0);
    expect(capB.userData.skipPlane.value).toBe(1);
  });

  it('rebuilds a due cap at once, a throttled one at most every CAP_REBUILD_MS, and drops planes that went', () => {
    const s = stage();
    const a = s.entry(1);
    // Nothing to cut (no models): no caps, no area, and the (empty) parts published.
    s.caps.rebuild(a);
    expect(a.capArea).toBe(0);
    expect(s.published).toEqual([[]]);
    const built = performance.now();
    s.caps.due.set(1, 'throttled');
    s.caps.rebuildDue(built + CAP_REBUILD_MS / 2);
    expect(s.caps.due.get(1)).toBe('throttled');
    expect(s.published).toHaveLength(1);
    s.caps.rebuildDue(built + CAP_REBUILD_MS + 1);
    expect(s.caps.due.size).toBe(0);
    expect(s.published).toHaveLength(2);
    s.caps.due.set(1, 'now');
    s.caps.rebuildDue(built);
    expect(s.published).toHaveLength(3);
    s.caps.due.set(5, 'now');
    s.caps.rebuildDue(built);
    expect(s.caps.due.size).toBe(0);
    expect(s.published).toHaveLength(3);
    s.caps.due.set(1, 'now');
    s.caps.forget(1);
    expect(s.caps.due.size).toBe(0);
  });

  it('draws each closed loop of the cut as segments back to its start', () => {
    // A triangle and a square, one after the other.
    const outline = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 5, 0, 6, 5, 0, 6, 6, 0, 5, 6, 0]);
    const lines = cutOutline(outline, new Uint32Array([0, 3, 7]), new LineMaterial());
    expect(lines).not.toBeNull();
    const start = (lines as unknown as Mesh).geometry.getAttribute('instanceStart');
    expect(start.count).toBe(7);
    expect(cutOutline(new Float32Array(0), new Uint32Array([0]), new LineMaterial())).toBeNull();
  });
});
