import { Group, Object3D, Ray, Vector2, Vector3 } from 'three';
import { createViewerWorld } from '../../../../../src/engine/world';
import type { PickHit } from '../../../../../src/viewer/pick-types';
import type { ToolContext } from '../../../../../src/viewer/tools/context';
import type { Label, LabelLayer } from '../../../../../src/viewer/tools/labels';
import { createMeasurements } from '../../../../../src/viewer/tools/measurements';
import { createSnapMarker } from '../../../../../src/viewer/tools/snap-marker';
import type { SurfacePicker } from '../../../../../src/viewer/tools/surface-picker';

/**
 * The measurement tools on a stand-in context: client pixel (x, y) is the world point
 * (x / 100 - 1, y / 100, 0.5) on a box's front face, and back.
 */
export function setup() {
  const toWorld = (x: number, y: number, out: Vector3) => out.set(x / 100 - 1, y / 100, 0.5);
  const counts = { changed: 0, redraw: 0 };
  const events: { type: string; data: any }[] = [];
  const labels: LabelLayer = {
    element: {} as HTMLDivElement,
    add(_className: string, text: string): Label {
      const element = { textContent: text, style: {} as Record<string, string>, dataset: {} as Record<string, string> } as unknown as HTMLDivElement;
      return {
        element,
        point: new Vector3(),
        offsetY: 0,
        inScreenshot: true,
        setText: (value) => void (element.textContent = value),
        setClass: () => undefined,
      };
    },
    remove: () => undefined,
    list: () => [],
    update: () => undefined,
    dispose: () => undefined,
  };
  const surfaces = {
    pickAtClient(clientX: number, clientY: number): PickHit {
      return {
        point: toWorld(clientX, clientY, new Vector3()),
        normal: new Vector3(0, 0, 1),
        distance: 10,
        object: new Object3D(),
        eid: 1,
        modelId: 'm',
        nodeId: 'box',
        nodeName: 'Box',
        material: null,
        materialId: null,
        instanceId: null,
        faceIndex: 0,
      };
    },
    snapToVertex: () => null,
  } as unknown as SurfacePicker;
  const ctx = {
    world: createViewerWorld(),
    renderer: { getPixelRatio: () => 1 },
    helpers: new Group(),
    labels,
    display: { unit: 'm', precision: 2, upAxis: 'y' },
    events: { emit: (type: string, data: unknown) => events.push({ type, data }) },
    surfaces,
    camera: () => {
      throw new Error('not used');
    },
    redraw: () => void counts.redraw++,
    changed: () => void counts.changed++,
    toClient(p: Vector3, out: Vector2) {
      out.set((p.x + 1) * 100, p.y * 100);
      return true;
    },
    rayAt: (_x: number, _y: number, out: Ray) => out,
  } as unknown as ToolContext;
  const measurements = createMeasurements(ctx, createSnapMarker(), () => undefined);
  return { ctx, measurements, counts, events };
}
