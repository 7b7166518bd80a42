import { describe, expect, it, vi } from 'vitest';
import type { KeyHandler, Keyboard } from '../../../../src/viewer/input/keyboard';
import type { KeyAction } from '../../../../src/viewer/input/keymap';
import { KEY_ORBIT_STEP, KEY_ZOOM_SHARE } from '../../../../src/viewer/navigation/framing';
import { bindNavigationKeys } from '../../../../src/viewer/navigation/keys';
import type { NavigationMode, Projection } from '../../../../src/viewer/navigation/modes';
import { controlsAt, settle } from './controls-stand-in';

function stage(mode: NavigationMode, projection: Projection = 'Perspective') {
  const bound = new Map<KeyAction, KeyHandler>();
  let shiftListener: ((on: boolean) => void) | null = null;
  const keyboard = {
    bind: (action: KeyAction, handler: KeyHandler) => {
      bound.set(action, handler);
      return () => bound.delete(action);
    },
    onShift: (fn: (on: boolean) => void) => {
      shiftListener = fn;
      return () => (shiftListener = null);
    },
  } as unknown as Keyboard;
  const { controls } = controlsAt();
  const held = new Set<KeyAction>();
  const nav = { controls, mode: () => mode, projection: () => projection, held, walkChanged: vi.fn(), setShift: vi.fn(), moved: vi.fn() };
  const unbind = bindNavigationKeys(keyboard, nav);
  const press = (action: KeyAction, pressed = true, shift = false) => bound.get(action)!({ action, pressed, shift, repeat: false });
  return { bound, nav, held, controls, press, unbind, shift: (on: boolean) => shiftListener?.(on) };
}

describe('the navigation keys (src/viewer/navigation/keys.ts)', () => {
  it('walk only in FirstPerson, with Shift running; a release always lets go', () => {
    const orbit = stage('Orbit');
    expect(orbit.press('walk-forward')).toBe(false);
    expect(orbit.held.size).toBe(0);
    const walk = stage('FirstPerson');
    expect(walk.press('walk-forward', true, true)).toBe(true);
    expect([...walk.held]).toEqual(['walk-forward']);
    expect(walk.nav.setShift).toHaveBeenCalledWith(true);
    expect(walk.press('walk-forward', false)).toBe(true);
    expect(walk.held.size).toBe(0);
    expect(walk.nav.walkChanged).toHaveBeenCalledTimes(2);
    walk.shift(false);
    expect(walk.nav.setShift).toHaveBeenLastCalledWith(false);
  });

  it('orbit and dolly in Orbit (zoom in orthographic), and leave the keys to FirstPerson', () => {
    const s = stage('Orbit');
    const azimuth = s.controls.azimuthAngle;
    expect(s.press('orbit-left')).toBe(true);
    settle(s.controls);
    expect(s.controls.azimuthAngle).toBeCloseTo(azimuth + KEY_ORBIT_STEP, 9);
    const distance = s.controls.distanceEnd;
    expect(s.press('zoom-in')).toBe(true);
    expect(s.controls.distanceEnd).toBeCloseTo(distance * (1 - KEY_ZOOM_SHARE), 9);
    expect(s.nav.moved).toHaveBeenCalledTimes(2);
    const ortho = stage('Plan', 'Orthographic');
    expect(ortho.press('zoom-out')).toBe(true);
    expect(ortho.controls.zoomEnd).toBeCloseTo(1 - KEY_ZOOM_SHARE, 9);
    const fp = stage('FirstPerson');
    expect(fp.press('orbit-left')).toBe(false);
    expect(fp.press('zoom-in')).toBe(false);
  });

  it('unbinds every entry it bound', () => {
    const s = stage('Orbit');
    expect(s.bound.size).toBeGreaterThan(6);
    for (const off of s.unbind) off();
    expect(s.bound.size).toBe(0);
  });
});
