/**
 * Procedural environments as equirectangular linear-light images (RGB floats, top row first), in
 * three.js' equirect convention: column u = atan2(z, x) / 2pi + 0.5, row v from the zenith (top)
 * to the nadir (bottom). Sun positions use the scene settings' convention (azimuth 0 = +Z, 90 =
 * +X; elevation above the horizon), so a sky's sun matches `sunAzimuth`/`sunElevation`.
 *
 * The model is artistic rather than physical: a zenith-to-horizon gradient, a glow around the sun
 * that is strongest near the horizon, a sun (or moon) disc with limb darkening and an
 * antialiased edge, haze at the horizon and a ground lit by the sky. Values are scaled so that
 * the noon sky is about 1 and the sun disc a few hundred to a few thousand: a bright,
 * directional light source in the prefiltered environment.
 */

type RGB = readonly [number, number, number];

export interface SkyPreset {
  kind: 'sky';
  /** Sun (or moon) azimuth and elevation in degrees. */
  sunAzimuth: number;
  sunElevation: number;
  zenith: RGB;
  horizon: RGB;
  /** Exponent shaping the zenith-horizon blend (higher: a thinner horizon band). */
  horizonFalloff: number;
  /** Colour and strength of the broad glow around the sun, and its angular width (radians). */
  glow: RGB;
  glowWidth: number;
  /** The tight halo around the disc. */
  halo: RGB;
  haloWidth: number;
  /** Disc radiance and angular radius (radians); radiance 0 for no disc. */
  disc: RGB;
  discRadius: number;
  /** Albedo times irradiance of the ground, and the haze band height (radians) at the horizon. */
  ground: RGB;
  haze: number;
  /** Stars: probability per pixel and radiance (night only). */
  stars?: { density: number; radiance: number };
  /** CIE overcast luminance distribution instead of the gradient (no disc). */
  overcast?: boolean;
}

export interface StudioPreset {
  kind: 'studio';
  backdrop: RGB;
  floor: RGB;
  /** Rectangular soft boxes: centre azimuth/elevation (degrees), half sizes (degrees), radiance. */
  boxes: { azimuth: number; elevation: number; halfWidth: number; halfHeight: number; radiance: RGB }[];
}

export type EnvironmentPreset = SkyPreset | StudioPreset;

export interface EnvironmentDefinition {
  id: string;
  name: string;
  preset: EnvironmentPreset;
}

export const ENVIRONMENTS: readonly EnvironmentDefinition[] = [
  {
    id: 'sky_dawn',
    name: 'Sky: dawn',
    preset: {
      kind: 'sky',
      sunAzimuth: 80,
      sunElevation: 4,
      zenith: [0.045, 0.07, 0.16],
      horizon: [0.42, 0.3, 0.3],
      horizonFalloff: 3,
      glow: [1.3, 0.62, 0.3],
      glowWidth: 0.55,
      halo: [3, 1.6, 0.7],
      haloWidth: 0.05,
      disc: [400, 230, 110],
      discRadius: 0.02,
      ground: [0.05, 0.045, 0.04],
      haze: 0.06,
    },
  },
  {
    id: 'sky_noon',
    name: 'Sky: noon',
    preset: {
      kind: 'sky',
      sunAzimuth: 150,
      sunElevation: 65,
      zenith: [0.18, 0.36, 0.85],
      horizon: [0.75, 0.85, 1.0],
      horizonFalloff: 4,
      glow: [0.35, 0.33, 0.3],
      glowWidth: 0.35,
      halo: [4, 3.8, 3.4],
      haloWidth: 0.04,
      disc: [2200, 2100, 1900],
      discRadius: 0.02,
      ground: [0.3, 0.28, 0.24],
      haze: 0.05,
    },
  },
  {
    id: 'sky_overcast',
    name: 'Sky: overcast',
    preset: {
      kind: 'sky',
      sunAzimuth: 200,
      sunElevation: 40,
      zenith: [0.95, 0.97, 1.0],
      horizon: [0.62, 0.64, 0.68],
      horizonFalloff: 1,
      glow: [0.15, 0.15, 0.14],
      glowWidth: 0.6,
      halo: [0, 0, 0],
      haloWidth: 0.1,
      disc: [0, 0, 0],
      discRadius: 0.02,
      ground: [0.14, 0.14, 0.13],
      haze: 0.08,
      overcast: true,
    },
  },
  {
    id: 'sky_sunset',
    name: 'Sky: sunset',
    preset: {
      kind: 'sky',
      sunAzimuth: 280,
      sunElevation: 2,
      zenith: [0.06, 0.08, 0.2],
      horizon: [0.55, 0.3, 0.22],
      horizonFalloff: 2.5,
      glow: [1.8, 0.65, 0.18],
      glowWidth: 0.7,
      halo: [5, 2, 0.5],
      haloWidth: 0.06,
      disc: [600, 250, 70],
      discRadius: 0.022,
      ground: [0.04, 0.03, 0.025],
      haze: 0.07,
    },
  },
  {
    id: 'sky_night',
    name: 'Sky: night',
    preset: {
      kind: 'sky',
      sunAzimuth: 210,
      sunElevation: 35,
      zenith: [0.002, 0.003, 0.009],
      horizon: [0.007, 0.009, 0.016],
      horizonFalloff: 2,
      glow: [0.004, 0.005, 0.008],
      glowWidth: 0.4,
      halo: [0.05, 0.055, 0.06],
      haloWidth: 0.05,
      disc: [3, 3.1, 3.3],
      discRadius: 0.018,
      ground: [0.0015, 0.0015, 0.002],
      haze: 0.05,
      stars: { density: 0.0025, radiance: 0.25 },
    },
  },
  {
    id: 'studio',
    name: 'Studio',
    preset: {
      kind: 'studio',
      backdrop: [0.06, 0.06, 0.065],
      floor: [0.1, 0.1, 0.1],
      boxes: [
        { azimuth: 40, elevation: 35, halfWidth: 18, halfHeight: 12, radiance: [9, 9, 8.6] }, // key
        { azimuth: -55, elevation: 20, halfWidth: 14, halfHeight: 14, radiance: [2.6, 2.7, 3] }, // fill
        { azimuth: 180, elevation: 30, halfWidth: 30, halfHeight: 5, radiance: [6, 6, 6] }, // rim strip
        { azimuth: 0, elevation: 85, halfWidth: 180, halfHeight: 6, radiance: [3.5, 3.5, 3.5] }, // top
      ],
    },
  },
];

/** Renders one environment to width * height * 3 linear floats. */
export function renderEnvironment(preset: EnvironmentPreset, width: number, height: number): Float32Array {
  return preset.kind === 'sky' ? renderSky(preset, width, height) : renderStudio(preset, width, height);
}

const DEG = Math.PI / 180;

function renderSky(p: SkyPreset, width: number, height: number): Float32Array {
  const out = new Float32Array(width * height * 3);
  const sa = p.sunAzimuth * DEG;
  const se = p.sunElevation * DEG;
  const sx = Math.cos(se) * Math.sin(sa);
  const sy = Math.sin(se);
  const sz = Math.cos(se) * Math.cos(sa);
  // A pixel's angular size, for the antialiased disc edge.
  const pixel = Math.PI / height;
  const seed = hashString(`${p.sunAzimuth},${p.sunElevation}`);
  // The ground sees the sky and the sun: dimmer as the sun goes down.
  const groundLight = Math.max(0.05, Math.min(1, Math.sin(Math.max(se, 0)) * 1.5 + 0.15));
  for (let y = 0; y < height; y++) {
    const elevation = Math.PI / 2 - ((y + 0.5) / height) * Math.PI;
    const dy = Math.sin(elevation);
    const ce = Math.cos(elevation);
    for (let x = 0; x < width; x++) {
      const phi = ((x + 0.5) / width - 0.5) * 2 * Math.PI;
      const dx = ce * Math.cos(phi);
      const dz = ce * Math.sin(phi);
      const cosGamma = Math.min(1, Math.max(-1, dx * sx + dy * sy + dz * sz));
      const gamma = Math.acos(cosGamma);
      const o = (y * width + x) * 3;
      const up = Math.max(dy, 0);
      let r: number, g: number, b: number;
      if (p.overcast) {
        // CIE overcast sky: L = Lz (1 + 2 sin(elevation)) / 3, tinted from horizon to zenith.
        const l = (1 + 2 * up) / 3;
        const t = up ** p.horizonFalloff;
        r = l * lerp(p.horizon[0], p.zenith[0], t);
        g = l * lerp(p.horizon[1], p.zenith[1], t);
        b = l * lerp(p.horizon[2], p.zenith[2], t);
      } else {
        const t = (1 - up) ** p.horizonFalloff;
        r = lerp(p.zenith[0], p.horizon[0], t);
        g = lerp(p.zenith[1], p.horizon[1], t);
        b = lerp(p.zenith[2], p.horizon[2], t);
      }
      // Broad glow, strongest towards the horizon; tight halo around the disc.
      const glow = Math.exp(-gamma / p.glowWidth) * (0.35 + 0.65 * (1 - up) ** 2);
      const halo = Math.exp(-gamma / p.haloWidth);
      r += p.glow[0] * glow + p.halo[0] * halo;
      g += p.glow[1] * glow + p.halo[1] * halo;
      b += p.glow[2] * glow + p.halo[2] * halo;
      if (dy < 0) {
        // Below the horizon: haze fading into the lit ground.
        const h = Math.min(1, -elevation / p.haze);
        const k = h * h * (3 - 2 * h);
        r = lerp(r, p.ground[0] * groundLight, k);
        g = lerp(g, p.ground[1] * groundLight, k);
        b = lerp(b, p.ground[2] * groundLight, k);
      } else {
        // The disc: limb-darkened, its edge antialiased over one pixel; hidden below the horizon.
        const edge = Math.min(1, Math.max(0, (p.discRadius - gamma) / pixel + 0.5));
        if (edge > 0 && p.disc[0] > 0) {
          const mu = Math.sqrt(Math.max(0, 1 - (gamma / p.discRadius) ** 2));
          const limb = 0.6 + 0.4 * mu;
          r += p.disc[0] * limb * edge;
          g += p.disc[1] * limb * edge;
          b += p.disc[2] * limb * edge;
        }
        if (p.stars && dy > 0.05) {
          const hash = hash2(x, y, seed);
          if (hash < p.stars.density) {
            const s = p.stars.radiance * (0.2 + 0.8 * (hash / p.stars.density)) * Math.min(1, dy * 4);
            r += s * 0.9;
            g += s * 0.95;
            b += s;
          }
        }
      }
      out[o] = r;
      out[o + 1] = g;
      out[o + 2] = b;
    }
  }
  return out;
}

function renderStudio(p: StudioPreset, width: number, height: number): Float32Array {
  const out = new Float32Array(width * height * 3);
  const pixelDeg = 180 / height;
  for (let y = 0; y < height; y++) {
    const elevation = 90 - ((y + 0.5) / height) * 180;
    // The backdrop brightens a little towards the horizon; the floor is a flat grey.
    const e = elevation * DEG;
    const t = Math.min(1, Math.max(0, -e / 0.08));
    const k = t * t * (3 - 2 * t);
    const wall = 0.75 + 0.25 * (1 - Math.abs(Math.sin(e)));
    for (let x = 0; x < width; x++) {
      const azimuth = 90 - ((x + 0.5) / width - 0.5) * 360; // phi = atan2(z, x) -> azimuth from +Z towards +X
      const o = (y * width + x) * 3;
      let r = lerp(p.backdrop[0] * wall, p.floor[0], k);
      let g = lerp(p.backdrop[1] * wall, p.floor[1], k);
      let b = lerp(p.backdrop[2] * wall, p.floor[2], k);
      for (const box of p.boxes) {
        const da = Math.abs(wrapDegrees(azimuth - box.azimuth));
        const de = Math.abs(elevation - box.elevation);
        // Coverage with a one-pixel soft edge; the box is brightest in its middle.
        const cx = clamp01((box.halfWidth - da) / pixelDeg + 0.5);
        const cy = clamp01((box.halfHeight - de) / pixelDeg + 0.5);
        const c = cx * cy;
        if (c <= 0) continue;
        const falloff = 0.8 + 0.2 * (1 - Math.min(1, de / box.halfHeight));
        r += box.radiance[0] * c * falloff;
        g += box.radiance[1] * c * falloff;
        b += box.radiance[2] * c * falloff;
      }
      out[o] = r;
      out[o + 1] = g;
      out[o + 2] = b;
    }
  }
  return out;
}

function lerp(a: number, b: number, t: number): number {
  return a + (b - a) * t;
}

function clamp01(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}

function wrapDegrees(d: number): number {
  return ((((d + 180) % 360) + 360) % 360) - 180;
}

function hashString(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** A deterministic value in [0, 1) per pixel. */
function hash2(x: number, y: number, seed: number): number {
  let h = (Math.imul(x, 374761393) + Math.imul(y, 668265263) + seed) | 0;
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}
