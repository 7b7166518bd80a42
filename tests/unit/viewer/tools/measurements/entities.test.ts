import { entityExists, hasComponent } from 'bitecs';
import { Group, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { Measurement, MeasurementKind } from '../../../../../components';
import { measurementPointCount } from '../../../../../src/engine/measurement-data';
import { createViewerWorld } from '../../../../../src/engine/world';
import type { ToolContext } from '../../../../../src/viewer/tools/context';
import type { Label, LabelLayer } from '../../../../../src/viewer/tools/labels';
import { despawnMeasurement, measurementEvent, spawnMeasurement } from '../../../../../src/viewer/tools/measurements/entities';

function context() {
  const removed: Label[] = [];
  const labels: LabelLayer = {
    element: {} as HTMLDivElement,
    add(): Label {
      const element = { textContent: '', style: {}, dataset: {} as Record<string, string> } as unknown as HTMLDivElement;
      return { element, point: new Vector3(), offsetY: 0, inScreenshot: true, setText: (t) => void (element.textContent = t), setClass: () => undefined };
    },
    remove: (label) => void removed.push(label),
    list: () => [],
    update: () => undefined,
    dispose: () => undefined,
  };
  const ctx = { world: createViewerWorld(), helpers: new Group(), labels, display: { unit: 'm', precision: 2, upAxis: 'y' } } as unknown as ToolContext;
  return { ctx, removed };
}

describe('measurement entities', () => {
  it('spawn an entity with its points as engine data and a bound drawing; despawn removes all of it', () => {
    const { ctx, removed } = context();
    const entry = spawnMeasurement(ctx, 'length', [new Vector3(0, 0, 0), new Vector3(0, 3, 4)], null, () => undefined);
    const eid = entry.eid;
    expect(hasComponent(ctx.world, eid, Measurement)).toBe(true);
    expect(Measurement.kind[eid]).toBe(MeasurementKind.length);
    expect(Measurement.value[eid]).toBeCloseTo(5, 9);
    expect(Measurement.changed[eid]).toBe(0);
    expect(measurementPointCount(ctx.world, eid)).toBe(2);
    expect(ctx.world.objects[eid]).toBe(entry.drawing.group);
    expect(entry.drawing.group.parent).toBe(ctx.helpers);
    expect(entry.drawing.label.element.dataset.measurement).toBe(String(eid));
    expect(measurementEvent(entry, 'created')).toEqual({ action: 'created', id: eid, kind: 'length', value: entry.value, label: '5.00 m', points: [{ x: 0, y: 0, z: 0 }, { x: 0, y: 3, z: 4 }] });

    despawnMeasurement(ctx, entry);
    expect(entityExists(ctx.world, eid)).toBe(false);
    expect(ctx.world.objects[eid]).toBeUndefined();
    expect(measurementPointCount(ctx.world, eid)).toBe(0);
    expect(entry.drawing.group.parent).toBeNull();
    expect(removed).toContain(entry.drawing.label);
  });
});
