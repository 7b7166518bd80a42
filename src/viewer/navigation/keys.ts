import type { Keyboard } from '../input/keyboard';
import type { KeyAction } from '../input/keymap';
import type { ViewerCameraControls } from './camera-controls';
import { KEY_ORBIT_STEP, KEY_ZOOM_SHARE } from './framing';
import type { NavigationMode, Projection } from './modes';
import { WALK_ACTIONS } from './walking';

/** What the navigation's keys read and change of the navigation. */
export interface KeyTarget {
  readonly controls: ViewerCameraControls;
  mode(): NavigationMode;
  projection(): Projection;
  /** Walking actions whose keys are held (the navigation walks with them in FirstPerson). */
  readonly held: Set<KeyAction>;
  /** The held keys changed: the walk follows. */
  walkChanged(): void;
  setShift(held: boolean): void;
  /** A key moved the camera. */
  moved(): void;
}

/**
 * The navigation's entries of the key map, bound on the viewer's keyboard (src/viewer/input):
 * the walking keys walk only in FirstPerson (elsewhere they are left to others), Shift runs (and
 * is the 'editor' config's truck switch), the orbit keys turn and + and - dolly (or zoom, in
 * orthographic) in Orbit and Plan. Returns the unbinding of every entry.
 */
export function bindNavigationKeys(keyboard: Keyboard, nav: KeyTarget): (() => void)[] {
  const { controls } = nav;
  const unbind: (() => void)[] = [];
  for (const action of WALK_ACTIONS) {
    unbind.push(
      keyboard.bind(action, (press) => {
        if (!press.pressed) {
          nav.held.delete(action);
          nav.walkChanged();
          return true;
        }
        if (nav.mode() !== 'FirstPerson') return false;
        nav.held.add(action);
        nav.setShift(press.shift);
        nav.walkChanged();
        return true;
      }),
    );
  }
  unbind.push(keyboard.onShift((on) => nav.setShift(on)));
  // Orbit and zoom from the keyboard (Orbit and Plan; FirstPerson walks with the same arrows).
  const orbitKeys: [KeyAction, number, number][] = [
    ['orbit-left', KEY_ORBIT_STEP, 0],
    ['orbit-right', -KEY_ORBIT_STEP, 0],
    ['orbit-up', 0, KEY_ORBIT_STEP],
    ['orbit-down', 0, -KEY_ORBIT_STEP],
  ];
  for (const [action, azimuth, polar] of orbitKeys) {
    unbind.push(
      keyboard.bind(action, () => {
        if (nav.mode() === 'FirstPerson') return false;
        void controls.rotate(azimuth, polar, true);
        nav.moved();
        return true;
      }),
    );
  }
  for (const [action, sign] of [
    ['zoom-in', 1],
    ['zoom-out', -1],
  ] as const) {
    unbind.push(
      keyboard.bind(action, () => {
        if (nav.mode() === 'FirstPerson') return false;
        if (nav.projection() === 'Orthographic') void controls.zoomTo(controls.zoomEnd * (1 + sign * KEY_ZOOM_SHARE), true);
        else void controls.dollyTo(controls.distanceEnd * (1 - sign * KEY_ZOOM_SHARE), true);
        nav.moved();
        return true;
      }),
    );
  }
  return unbind;
}
