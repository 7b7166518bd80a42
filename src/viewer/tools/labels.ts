import { Vector3, type Camera } from 'three';

/**
 * HTML labels pinned to world points (measurement values, sampled coordinates). One absolutely
 * positioned layer over the canvas; each label is moved with a CSS transform whenever the camera
 * moves (`update`), reusing one scratch vector. A label whose point is behind the camera or off
 * the canvas is hidden.
 */
export interface Label {
  readonly element: HTMLDivElement;
  /** The world point the label is pinned to (the owner changes it in place, then calls update). */
  readonly point: Vector3;
  /** Pixel offset from the projected point (e.g. below a sampled point). */
  offsetY: number;
  /** Drawn into screenshots when shown (default true; the live label of a measurement in progress is not). */
  inScreenshot: boolean;
  setText(text: string): void;
  setClass(name: string, on: boolean): void;
}

export interface LabelLayer {
  readonly element: HTMLDivElement;
  add(className: string, text: string, onPick?: () => void): Label;
  remove(label: Label): void;
  /** Every label (screenshots draw the shown ones). */
  list(): readonly Label[];
  /** Re-projects every label for the camera and the layer's size. */
  update(camera: Camera): void;
  dispose(): void;
}

const projected = new Vector3();
const toPoint = new Vector3();
const cameraDirection = new Vector3();

/**
 * The layer goes right after `canvas` in the container, under every other overlay (panels,
 * notices), so a label never covers a button.
 */
export function createLabelLayer(container: HTMLElement, canvas: Element | null = null): LabelLayer {
  const layer = container.ownerDocument.createElement('div');
  layer.className = 'tool-labels';
  layer.dataset.testid = 'tool-labels';
  container.insertBefore(layer, canvas && canvas.parentNode === container ? canvas.nextSibling : null);
  const labels = new Set<Label>();

  return {
    element: layer,
    add(className, text, onPick) {
      const element = container.ownerDocument.createElement('div');
      element.className = `tool-label ${className}`;
      element.textContent = text;
      element.style.visibility = 'hidden';
      if (onPick) {
        element.setAttribute('role', 'button');
        element.tabIndex = 0;
        // The label sits over the canvas: its presses must not start a camera drag.
        element.addEventListener('pointerdown', (event) => event.stopPropagation());
        element.addEventListener('click', (event) => {
          event.stopPropagation();
          onPick();
        });
        element.addEventListener('keydown', (event) => {
          if (event.key === 'Enter' || event.key === ' ') {
            event.preventDefault();
            onPick();
          }
        });
      }
      layer.appendChild(element);
      const label: Label = {
        element,
        point: new Vector3(),
        offsetY: 0,
        inScreenshot: true,
        setText(value) {
          if (element.textContent !== value) element.textContent = value;
        },
        setClass(name, on) {
          element.classList.toggle(name, on);
        },
      };
      labels.add(label);
      return label;
    },
    list() {
      return [...labels];
    },
    remove(label) {
      labels.delete(label);
      label.element.remove();
    },
    update(camera) {
      const width = layer.clientWidth;
      const height = layer.clientHeight;
      camera.updateMatrixWorld();
      camera.getWorldDirection(cameraDirection);
      for (const label of labels) {
        const style = label.element.style;
        toPoint.copy(label.point).sub(camera.position);
        projected.copy(label.point).project(camera);
        const behind = toPoint.dot(cameraDirection) <= 0 && !(camera as Camera & { isOrthographicCamera?: boolean }).isOrthographicCamera;
        if (behind || projected.z > 1 || Math.abs(projected.x) > 1.05 || Math.abs(projected.y) > 1.05) {
          if (style.visibility !== 'hidden') style.visibility = 'hidden';
          continue;
        }
        const x = ((projected.x + 1) / 2) * width;
        const y = ((1 - projected.y) / 2) * height + label.offsetY;
        style.transform = `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px) translate(-50%, -50%)`;
        if (style.visibility !== 'visible') style.visibility = 'visible';
      }
    },
    dispose() {
      labels.clear();
      layer.remove();
    },
  };
}
