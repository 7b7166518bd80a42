import { PerspectiveCamera } from 'three';
import { beforeAll } from 'vitest';
import { ViewerCameraControls } from '../../../../src/viewer/navigation/camera-controls';

// camera-controls builds a DOMRect for its element; Node has none (the controls run here without an element).
beforeAll(() => {
  const g = globalThis as { DOMRect?: unknown };
  if (!g.DOMRect) {
    g.DOMRect = class {
      constructor(
        public x = 0,
        public y = 0,
        public width = 0,
        public height = 0,
      ) {}
    };
  }
});

/** Real camera-controls on a 45° camera at (0, 0, 10) looking at the origin. */
export function controlsAt(): { controls: ViewerCameraControls; camera: PerspectiveCamera } {
  const camera = new PerspectiveCamera(45, 16 / 9, 0.1, 2000);
  const controls = new ViewerCameraControls(camera);
  void controls.setLookAt(0, 0, 10, 0, 0, 0, false);
  controls.update(0);
  return { controls, camera };
}

/** Runs the controls until their transitions have ended. */
export function settle(controls: ViewerCameraControls): void {
  for (let i = 0; i < 400; i++) controls.update(1 / 60);
}
