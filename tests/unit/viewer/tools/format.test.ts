import { describe, expect, it } from 'vitest';
import { DEFAULT_DISPLAY, displayedAxes, feetInches, formatAngle, formatArea, formatComponents, formatCoordinates, formatLength, mergeDisplay, type DisplayUnits } from '../../../../src/viewer/tools/format';

describe('labels', () => {
  it('rounds to 2 decimals with the units', () => {
    expect(formatLength(2)).toBe('2.00 m');
    expect(formatLength(1.23456)).toBe('1.23 m');
    expect(formatLength(0.005)).toBe('0.01 m');
    expect(formatArea(6)).toBe('6.00 m²');
    expect(formatAngle(90)).toBe('90.00°');
    expect(formatAngle(89.99999)).toBe('90.00°');
  });

  it('never prints a negative zero and refuses non-finite values', () => {
    expect(formatCoordinates(-0.001, 1.5, -2)).toBe('X 0.00 · Y 1.50 · Z -2.00 m');
    expect(() => formatLength(Number.NaN)).toThrow('finite');
    expect(() => formatArea(Infinity)).toThrow('finite');
  });
});

describe('display units', () => {
  const d = (patch: Partial<DisplayUnits>) => mergeDisplay(DEFAULT_DISPLAY, patch);

  it('keeps the specification label by default and converts metric units', () => {
    expect(formatLength(2, DEFAULT_DISPLAY)).toBe('2.00 m');
    expect(formatLength(2, d({ unit: 'cm', precision: 1 }))).toBe('200.0 cm');
    expect(formatLength(0.0123, d({ unit: 'mm', precision: 0 }))).toBe('12 mm');
    expect(formatArea(6, d({ unit: 'cm', precision: 0 }))).toBe('60000 cm²');
    expect(formatAngle(45.123, d({ precision: 1 }))).toBe('45.1°');
  });

  it('writes feet and inches with a reduced fraction of an inch', () => {
    expect(feetInches(2, 2)).toBe(`6' 6 3/4"`);
    expect(feetInches(0.3048, 4)).toBe(`1' 0"`);
    expect(feetInches(0.0254 / 16, 4)).toBe(`0' 1/16"`);
    expect(feetInches(-0.3048, 0)).toBe(`-1' 0"`);
    expect(feetInches(-0.0001, 0)).toBe(`0' 0"`);
    expect(formatLength(2, d({ unit: 'ft-in', precision: 2 }))).toBe(`6' 6 3/4"`);
    expect(formatArea(1, d({ unit: 'ft-in', precision: 2 }))).toBe('10.76 ft²');
  });

  it('shows coordinates and components Z-up when asked, stored values unchanged', () => {
    expect(formatCoordinates(1, 2, 3)).toBe('X 1.00 · Y 2.00 · Z 3.00 m');
    expect(formatCoordinates(1, 2, 3, d({ upAxis: 'z' }))).toBe('X 1.00 · Y -3.00 · Z 2.00 m');
    expect(displayedAxes(1, 2, 3, 'z')).toEqual([1, -3, 2]);
    expect(formatComponents({ x: 0, y: 0, z: 0 }, { x: 2, y: 1, z: -0.5 })).toBe('ΔX 2.00 · ΔY 1.00 · ΔZ -0.50 m');
    expect(formatComponents({ x: 0, y: 0, z: 0 }, { x: 2, y: 1, z: -0.5 }, d({ upAxis: 'z', unit: 'mm', precision: 0 }))).toBe('ΔX 2000 · ΔY 500 · ΔZ 1000 mm');
  });

  it('refuses unknown units, axes and precisions', () => {
    expect(() => d({ unit: 'yd' as never })).toThrow("Unknown unit");
    expect(() => d({ precision: 5 })).toThrow('precision');
    expect(() => d({ precision: 1.5 })).toThrow('precision');
    expect(() => d({ upAxis: 'x' as never })).toThrow('up axis');
  });
});
