import { describe, expect, it } from 'vitest';
import { formatAngle, formatArea, formatCoordinates, formatLength } from '../../../../src/viewer/tools/format';

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
