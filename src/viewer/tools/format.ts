/**
 * Label texts of the measurement tools and the point sampler. Stored values are always metres,
 * Y up (viewer specification section 1: "Units are metres, with scale 1"); what is shown follows
 * the display settings: a unit (m, cm, mm, or feet and inches), a precision, and which axis is up
 * for displayed coordinates. The defaults give the specification's labels ('2.00 m': "Lengths are
 * rounded to 2 decimals").
 */

export const LENGTH_UNITS = ['m', 'cm', 'mm', 'ft-in'] as const;
export type LengthUnit = (typeof LENGTH_UNITS)[number];
export const UP_AXES = ['y', 'z'] as const;
export type UpAxis = (typeof UP_AXES)[number];
/** Decimals for metric units; for feet and inches the inch fraction (0: whole inches, 1: 1/2, ... 4: 1/16). */
export const MAX_PRECISION = 4;

export interface DisplayUnits {
  unit: LengthUnit;
  precision: number;
  /** The up axis of displayed coordinates: 'y' as stored, 'z' as building models are drawn (X, -Z, Y). */
  upAxis: UpAxis;
}

export const DEFAULT_DISPLAY: Readonly<DisplayUnits> = Object.freeze({ unit: 'm', precision: 2, upAxis: 'y' });

/** Checks a patch of display settings and returns the merged settings (throws on a bad field). */
export function mergeDisplay(current: Readonly<DisplayUnits>, patch: Partial<DisplayUnits>): DisplayUnits {
  const next = { ...current, ...patch };
  if (!(LENGTH_UNITS as readonly string[]).includes(next.unit)) throw new Error(`Unknown unit ${JSON.stringify(next.unit)}: expected one of ${LENGTH_UNITS.join(', ')}.`);
  if (!Number.isInteger(next.precision) || next.precision < 0 || next.precision > MAX_PRECISION) {
    throw new Error(`The precision must be a whole number from 0 to ${MAX_PRECISION}, got ${String(next.precision)}.`);
  }
  if (!(UP_AXES as readonly string[]).includes(next.upAxis)) throw new Error(`Unknown up axis ${JSON.stringify(next.upAxis)}: expected 'y' or 'z'.`);
  return next;
}

const METRIC: Record<Exclude<LengthUnit, 'ft-in'>, number> = { m: 1, cm: 100, mm: 1000 };
const INCHES_PER_METRE = 1 / 0.0254;

/** '2.00 m', '200.0 cm', '6\' 6 3/4"'. */
export function formatLength(metres: number, display: Readonly<DisplayUnits> = DEFAULT_DISPLAY): string {
  finite(metres);
  if (display.unit === 'ft-in') return feetInches(metres, display.precision);
  return `${fixed(metres * METRIC[display.unit], display.precision)} ${display.unit}`;
}

/** '6.00 m²'; in feet and inches, square feet with the precision as decimals. */
export function formatArea(squareMetres: number, display: Readonly<DisplayUnits> = DEFAULT_DISPLAY): string {
  finite(squareMetres);
  if (display.unit === 'ft-in') return `${fixed(squareMetres * (INCHES_PER_METRE / 12) ** 2, display.precision)} ft²`;
  return `${fixed(squareMetres * METRIC[display.unit] ** 2, display.precision)} ${display.unit}²`;
}

/** '90.00°': degrees with the precision's decimals. */
export function formatAngle(degrees: number, display: Readonly<DisplayUnits> = DEFAULT_DISPLAY): string {
  finite(degrees);
  return `${fixed(degrees, display.precision)}°`;
}

/** A stored (Y-up) point as displayed: Z-up turns it to (x, -z, y). */
export function displayedAxes(x: number, y: number, z: number, upAxis: UpAxis): [number, number, number] {
  return upAxis === 'z' ? [x, -z, y] : [x, y, z];
}

/** 'X 1.00 · Y 2.00 · Z -0.50 m': a sampled point's world coordinates in the display's axes and unit. */
export function formatCoordinates(x: number, y: number, z: number, display: Readonly<DisplayUnits> = DEFAULT_DISPLAY): string {
  const [a, b, c] = displayedAxes(x, y, z, display.upAxis);
  if (display.unit === 'ft-in') return `X ${feetInches(a, display.precision)} · Y ${feetInches(b, display.precision)} · Z ${feetInches(c, display.precision)}`;
  const k = METRIC[display.unit];
  return `X ${fixed(a * k, display.precision)} · Y ${fixed(b * k, display.precision)} · Z ${fixed(c * k, display.precision)} ${display.unit}`;
}

/** The X / Y / Z components of a length from `a` to `b`, as displayed: 'ΔX 2.00 · ΔY 0.00 · ΔZ 0.00 m'. */
export function formatComponents(a: { x: number; y: number; z: number }, b: { x: number; y: number; z: number }, display: Readonly<DisplayUnits> = DEFAULT_DISPLAY): string {
  const [dx, dy, dz] = displayedAxes(b.x - a.x, b.y - a.y, b.z - a.z, display.upAxis);
  if (display.unit === 'ft-in') return `ΔX ${feetInches(dx, display.precision)} · ΔY ${feetInches(dy, display.precision)} · ΔZ ${feetInches(dz, display.precision)}`;
  const k = METRIC[display.unit];
  return `ΔX ${fixed(dx * k, display.precision)} · ΔY ${fixed(dy * k, display.precision)} · ΔZ ${fixed(dz * k, display.precision)} ${display.unit}`;
}

/** Feet and inches to a fraction of an inch of 1 / 2^precision, reduced: 6' 6 3/4", -1' 0", 0' 1/16". */
export function feetInches(metres: number, precision: number): string {
  finite(metres);
  const denominator = 2 ** precision;
  const sixteenths = Math.round(Math.abs(metres) * INCHES_PER_METRE * denominator);
  const negative = metres < 0 && sixteenths > 0;
  const feet = Math.floor(sixteenths / (12 * denominator));
  const rest = sixteenths - feet * 12 * denominator;
  const inches = Math.floor(rest / denominator);
  let numerator = rest - inches * denominator;
  let den = denominator;
  while (numerator > 0 && numerator % 2 === 0) {
    numerator /= 2;
    den /= 2;
  }
  const fraction = numerator > 0 ? `${inches > 0 ? `${inches} ` : ''}${numerator}/${den}` : String(inches);
  return `${negative ? '-' : ''}${feet}' ${fraction}"`;
}

function finite(value: number): void {
  if (!Number.isFinite(value)) throw new Error(`A measured value must be a finite number, not ${value}.`);
}

/** Fixed decimals without a negative zero ('-0.00' reads as a bug). */
function fixed(value: number, decimals: number): string {
  const text = value.toFixed(decimals);
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}
