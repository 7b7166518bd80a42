/**
 * Label texts of the measurement tools and the point sampler (viewer specification section 9:
 * "Lengths are rounded to 2 decimals"; units are metres with scale 1).
 */

/** '2.00 m' */
export function formatLength(metres: number): string {
  return `${round2(metres)} m`;
}

/** '6.00 m²' */
export function formatArea(squareMetres: number): string {
  return `${round2(squareMetres)} m²`;
}

/** '90.00°' */
export function formatAngle(degrees: number): string {
  return `${round2(degrees)}°`;
}

/** 'X 1.00 · Y 2.00 · Z -0.50 m': a sampled point's world coordinates. */
export function formatCoordinates(x: number, y: number, z: number): string {
  return `X ${round2(x)} · Y ${round2(y)} · Z ${round2(z)} m`;
}

/** Two decimals without a negative zero ('-0.00' reads as a bug). */
function round2(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`A measured value must be a finite number, not ${value}.`);
  const text = value.toFixed(2);
  return text === '-0.00' ? '0.00' : text;
}
