import CameraControls from 'camera-controls';
import { describe, expect, it } from 'vitest';
import { ERR_MODE } from '../../../../src/protocol/errors';
import {
  effectiveMode,
  mouseButtonsFor,
  parseCameraConfig,
  parseMode,
  parseProjection,
  parseViewAxis,
  touchesFor,
} from '../../../../src/viewer/navigation/modes';

const A = CameraControls.ACTION;
const buttons = () => ({ left: A.NONE, middle: A.NONE, right: A.NONE, wheel: A.NONE }) as CameraControls['mouseButtons'];
const touches = () => ({ one: A.NONE, two: A.NONE, three: A.NONE }) as CameraControls['touches'];

describe('navigation modes', () => {
  it('parses the names of the specification and refuses anything else', () => {
    expect(parseMode('Plan')).toBe('Plan');
    expect(() => parseMode('plan')).toThrow(ERR_MODE);
    expect(() => parseMode(undefined)).toThrow(ERR_MODE);
    expect(parseProjection('Orthographic')).toBe('Orthographic');
    expect(() => parseProjection('ortho')).toThrow(`Unknown projection "ortho": expected 'Perspective' or 'Orthographic'.`);
    expect(parseCameraConfig('editor')).toBe('editor');
    expect(() => parseCameraConfig(3)).toThrow(/^Unknown camera config 3/);
    expect(parseViewAxis('-z')).toBe('-z');
    expect(() => parseViewAxis('z')).toThrow('Unknown view axis "z": expected one of +x, -x, +y, -y, +z, -z.');
  });

  it('FirstPerson falls back to Orbit in orthographic; other modes stay', () => {
    expect(effectiveMode('FirstPerson', 'Orthographic')).toBe('Orbit');
    expect(effectiveMode('FirstPerson', 'Perspective')).toBe('FirstPerson');
    expect(effectiveMode('Plan', 'Orthographic')).toBe('Plan');
  });

  it("'simple' mouse: left rotates, middle and right truck; the wheel dollies in perspective Orbit", () => {
    expect(mouseButtonsFor('simple', 'Orbit', 'Perspective', false, buttons())).toEqual({ left: A.ROTATE, middle: A.TRUCK, right: A.TRUCK, wheel: A.DOLLY });
  });

  it("'editor' mouse: left free for selection, middle/right rotate and truck with Shift", () => {
    expect(mouseButtonsFor('editor', 'Orbit', 'Perspective', false, buttons())).toEqual({ left: A.NONE, middle: A.ROTATE, right: A.ROTATE, wheel: A.DOLLY });
    expect(mouseButtonsFor('editor', 'Orbit', 'Perspective', true, buttons())).toMatchObject({ middle: A.TRUCK, right: A.TRUCK });
  });

  it('the wheel zooms where the camera has no distance to change (orthographic, FirstPerson)', () => {
    expect(mouseButtonsFor('simple', 'Orbit', 'Orthographic', false, buttons()).wheel).toBe(A.ZOOM);
    expect(mouseButtonsFor('simple', 'FirstPerson', 'Perspective', false, buttons()).wheel).toBe(A.ZOOM);
  });

  it('touch: Orbit rotates with one finger, Plan pans with one and spins with three', () => {
    expect(touchesFor('Orbit', 'Perspective', touches())).toEqual({ one: A.TOUCH_ROTATE, two: A.TOUCH_DOLLY_TRUCK, three: A.TOUCH_TRUCK });
    expect(touchesFor('Plan', 'Orthographic', touches())).toEqual({ one: A.TOUCH_TRUCK, two: A.TOUCH_ZOOM_TRUCK, three: A.TOUCH_ROTATE });
    expect(touchesFor('FirstPerson', 'Perspective', touches()).two).toBe(A.TOUCH_ZOOM_TRUCK);
  });
});
