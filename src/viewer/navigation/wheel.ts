import { Vector3 } from 'three';
import type { PointerHandler, PointerRouter } from '../input/pointer-router';
import type { ViewerCameraControls } from './camera-controls';

const target = new Vector3();
const position = new Vector3();

/**
 * The wheel zooms towards the surface under the pointer (the router's one pick of the frame): the
 * router hears the wheel before camera-controls does (its listener is the container's, in the
 * capture phase), and the orbit point moves onto that surface, keeping the view. The library's
 * dolly then scales the distance to it, so it slows near the surface and stops at the minimum
 * distance instead of passing through into an empty screen. Only towards the scene (deltaY < 0),
 * and only where `applies()` (not FirstPerson, not orthographic). It never takes the wheel.
 */
export function wheelTowardsSurface(controls: ViewerCameraControls, router: PointerRouter, applies: () => boolean): PointerHandler {
  return {
    wheel(_x, _y, deltaY) {
      if (!applies() || deltaY >= 0) return false;
      const hit = router.hit();
      if (!hit) return false;
      controls.getTarget(target, false);
      controls.getPosition(position, false);
      const toHit = position.distanceTo(hit.point);
      // Already orbiting (about) this point: keep the library's smooth dolly undisturbed.
      if (target.distanceTo(hit.point) < toHit * 0.02) return false;
      controls.setOrbitPoint(hit.point.x, hit.point.y, hit.point.z);
      return false;
    },
  };
}
