import { BufferAttribute, BufferGeometry, Points } from 'three';
import type { SampleEventData } from '../events';
import { toHitEventData } from '../picking';
import type { ToolContext } from './context';
import { formatCoordinates } from './format';
import { createPointMaterial, onHelperLayer } from './helper-materials';

/**
 * The point sampler (viewer specification section 2: "Point sampler: shift plus left click"): the
 * picked point's world coordinates in a label at the point, with a marker, and a 'sample' event.
 * One sample is shown at a time; a click on its label or Escape clears it.
 */
export interface Sampler {
  sampleAt(clientX: number, clientY: number): SampleEventData | null;
  clear(): boolean;
  /** Rewrites the label after the display settings changed. */
  relabel(): void;
  /** Forgets the last miss (a new action starts). */
  clearFeedback(): void;
  readonly current: SampleEventData | null;
  readonly feedback: string | null;
  dispose(): void;
}

export function createSampler(ctx: ToolContext): Sampler {
  const position = new BufferAttribute(new Float32Array(3), 3);
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', position);
  const material = createPointMaterial(0xffd400, 10);
  const dot = onHelperLayer(new Points(geometry, material));
  dot.name = 'Sampled point';
  dot.frustumCulled = false;
  dot.visible = false;
  dot.renderOrder = 1003;
  // The pin is part of a screenshot, like the measurements.
  dot.userData.annotation = true;
  ctx.helpers.add(dot);
  const label = ctx.labels.add('sample-label', '', () => api.clear());
  label.element.dataset.testid = 'sample-label';
  label.element.title = 'Sampled point (click to clear)';
  label.element.style.display = 'none';
  label.offsetY = -22;
  let current: SampleEventData | null = null;
  let feedback: string | null = null;

  const api: Sampler = {
    sampleAt(clientX, clientY) {
      // Models and section caps: a point on a cut face reads as well.
      const hit = ctx.surfaces.pickAtClient(clientX, clientY);
      if (!hit) {
        feedback = 'Missed the model: nothing is under the pointer.';
        ctx.changed();
        return null;
      }
      feedback = null;
      const p = hit.point;
      const text = formatCoordinates(p.x, p.y, p.z, ctx.display);
      position.setXYZ(0, p.x, p.y, p.z);
      position.needsUpdate = true;
      dot.visible = true;
      label.point.copy(p);
      label.setText(text);
      label.element.style.display = '';
      current = { point: { x: p.x, y: p.y, z: p.z }, label: text, hit: toHitEventData(hit) };
      ctx.events.emit('sample', current);
      ctx.redraw();
      ctx.changed();
      return current;
    },
    clear() {
      const had = current !== null || feedback !== null;
      current = null;
      feedback = null;
      dot.visible = false;
      label.element.style.display = 'none';
      if (had) {
        ctx.redraw();
        ctx.changed();
      }
      return had;
    },
    clearFeedback() {
      if (feedback === null) return;
      feedback = null;
      ctx.changed();
    },
    relabel() {
      if (!current) return;
      const p = current.point;
      current = { ...current, label: formatCoordinates(p.x, p.y, p.z, ctx.display) };
      label.setText(current.label);
      ctx.redraw();
      ctx.changed();
    },
    get current() {
      return current;
    },
    get feedback() {
      return feedback;
    },
    dispose() {
      dot.removeFromParent();
      geometry.dispose();
      material.dispose();
      ctx.labels.remove(label);
    },
  };
  return api;
}
