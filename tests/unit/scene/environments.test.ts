import jpeg from 'jpeg-js';
import { DataUtils, FloatType, HalfFloatType } from 'three';
import { HDRLoader } from 'three/examples/jsm/loaders/HDRLoader.js';
import { UltraHDRLoader } from 'three/examples/jsm/loaders/UltraHDRLoader.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { encodeGainMapJpeg } from '../../../scripts/assets/gain-map-jpeg';
import { encodeRadianceHdr } from '../../../scripts/assets/radiance-hdr';
import { ENVIRONMENTS, renderEnvironment } from '../../../scripts/assets/skies';
import { generateAssets } from '../../../scripts/generate-assets';
import { ENVIRONMENT_BASE, EnvironmentCatalog, EnvironmentEntry, environmentUrl } from '../../../src/protocol/environment';
import { WATER_NORMALS_URL } from '../../../src/protocol/scene-settings';
import { fetchEnvironmentCatalog, loadEnvironmentTexture, resolveEnvironment } from '../../../src/scene/environments';
import { decodeGainMapJpeg, decodeRadiance } from '../../../src/scene/environment-decoders';

const preset = (id: string) => ENVIRONMENTS.find((e) => e.id === id)!.preset;

/** Relative error of a decoded value against the source, with an absolute floor for dark values. */
function relativeError(decoded: number, source: number, floor: number): number {
  return Math.abs(decoded - source) / Math.max(Math.abs(source), floor);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

describe('Radiance HDR encoder', () => {
  it('decodes with three.js HDRLoader to the source values within RGBE precision (run-length scanlines)', () => {
    const width = 128, height = 64;
    const rgb = renderEnvironment(preset('sky_noon'), width, height);
    const file = encodeRadianceHdr(width, height, rgb);
    expect(new TextDecoder().decode(file.subarray(0, 11))).toBe('#?RADIANCE\n');
    const parsed = new HDRLoader().setDataType(FloatType).parse(file.buffer as ArrayBuffer);
    expect(parsed.width).toBe(width);
    expect(parsed.height).toBe(height);
    const data = parsed.data as Float32Array;
    let brightest = 0;
    for (let i = 0; i < width * height; i++) {
      const max = Math.max(rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2]);
      brightest = Math.max(brightest, data[i * 4]);
      for (let c = 0; c < 3; c++) {
        // A shared exponent: each channel is exact to 1/128 of the pixel's largest channel.
        expect(Math.abs(data[i * 4 + c] - rgb[i * 3 + c])).toBeLessThanOrEqual(max / 128 + 1e-12);
      }
      expect(data[i * 4 + 3]).toBe(1);
    }
    // The sun disc is in there, far above 1.
    expect(brightest).toBeGreaterThan(100);
  });

  it('writes flat scanlines for widths run-length coding cannot hold, and zero for black or invalid values', () => {
    const rgb = new Float32Array([0, 0, 0, 1, 0.5, 0.25, -1, NaN, Infinity, 1e6, 2e6, 4e6]);
    const file = encodeRadianceHdr(4, 1, rgb);
    const data = new HDRLoader().setDataType(FloatType).parse(file.buffer as ArrayBuffer).data as Float32Array;
    expect([...data.subarray(0, 3)]).toEqual([0, 0, 0]);
    expect(data[4]).toBeCloseTo(1, 2);
    expect(data[5]).toBeCloseTo(0.5, 2);
    expect(data[6]).toBeCloseTo(0.25, 2);
    expect([...data.subarray(8, 11)]).toEqual([0, 0, 0]);
    expect(data[14] / 4e6).toBeCloseTo(1, 2);
  });

  it('run-length codes long runs (a flat image is small) and decodes them', () => {
    const width = 256, height = 4;
    const rgb = new Float32Array(width * height * 3).fill(0.5);
    const file = encodeRadianceHdr(width, height, rgb);
    expect(file.length).toBeLessThan(200);
    const data = new HDRLoader().setDataType(FloatType).parse(file.buffer as ArrayBuffer).data as Float32Array;
    for (let i = 0; i < width * height; i++) expect(data[i * 4]).toBeCloseTo(0.5, 2);
  });

  it('decodeRadiance gives half floats and reports a file that is not Radiance', () => {
    const rgb = new Float32Array(16 * 8 * 3).fill(2);
    const image = decodeRadiance(encodeRadianceHdr(16, 8, rgb).buffer as ArrayBuffer);
    expect(image.width).toBe(16);
    expect(Math.abs(DataUtils.fromHalfFloat(image.data[0]) - 2)).toBeLessThan(2 / 128);
    expect(() => decodeRadiance(new TextEncoder().encode('not an image').buffer as ArrayBuffer, '/x.hdr')).toThrow(/x\.hdr is not a readable Radiance HDR file/);
  });
});

/**
 * three's UltraHDRLoader decodes the two JPEGs with createImageBitmap and reads their pixels from
 * a 2D canvas, and the XMP metadata with DOMParser: in Node these stand in for them (jpeg-js
 * decodes; a regex reads the XMP element attributes).
 */
function stubBrowserImageApis(): void {
  vi.stubGlobal('createImageBitmap', async (blob: Blob) => {
    const decoded = jpeg.decode(new Uint8Array(await blob.arrayBuffer()), { useTArray: true, formatAsRGBA: true });
    return { width: decoded.width, height: decoded.height, data: decoded.data };
  });
  vi.stubGlobal('document', {
    createElement: () => {
      let drawn: { width: number; height: number; data: Uint8Array } | null = null;
      return {
        width: 0,
        height: 0,
        getContext: () => ({
          drawImage(image: { width: number; height: number; data: Uint8Array }, ...args: number[]) {
            // The loader scales the gain map to the SDR size: ours are the same size.
            if (args.length === 8) expect([args[6], args[7]]).toEqual([image.width, image.height]);
            drawn = image;
          },
          getImageData: () => ({ data: drawn!.data }),
        }),
      };
    },
  });
  vi.stubGlobal(
    'DOMParser',
    class {
      parseFromString(xml: string) {
        return {
          getElementsByTagName(name: string) {
            const found: { getAttribute(a: string): string | null }[] = [];
            for (const m of xml.matchAll(new RegExp(`<${name}\\b([^>]*)>`, 'g'))) {
              const attributes = m[1];
              found.push({ getAttribute: (a: string) => new RegExp(`${a}="([^"]*)"`).exec(attributes)?.[1] ?? null });
            }
            return found;
          },
        };
      }
    },
  );
}

describe('gain-map JPEG encoder', () => {
  beforeEach(stubBrowserImageApis);
  afterEach(() => vi.unstubAllGlobals());

  it('is an Ultra HDR file: an SDR JPEG whose MPF entry points at a gain-map JPEG with hdrgm metadata', () => {
    const width = 64, height = 32;
    const { bytes, sdrBytes, gainMapBytes } = encodeGainMapJpeg(width, height, renderEnvironment(preset('sky_dawn'), width, height));
    expect(bytes.length).toBe(sdrBytes + gainMapBytes);
    expect([bytes[0], bytes[1]]).toEqual([0xff, 0xd8]);
    expect([bytes[sdrBytes], bytes[sdrBytes + 1]]).toEqual([0xff, 0xd8]);
    const text = new TextDecoder('latin1').decode(bytes);
    expect(text).toContain('Container:Directory');
    expect(text).toContain(`Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="${gainMapBytes}"`);
    expect(text.indexOf('hdrgm:GainMapMax')).toBeGreaterThan(sdrBytes);
    // Both halves are plain JPEGs: any decoder shows the SDR image.
    expect(jpeg.decode(bytes.subarray(0, sdrBytes)).width).toBe(width);
    expect(jpeg.decode(bytes.subarray(sdrBytes)).height).toBe(height);
  });

  for (const id of ['sky_noon', 'sky_sunset', 'studio']) {
    it(`${id}: three.js UltraHDRLoader recovers the HDR values, sun and soft boxes included`, async () => {
      const width = 256, height = 128;
      const rgb = renderEnvironment(preset(id), width, height);
      const { bytes } = encodeGainMapJpeg(width, height, rgb);
      const loader = new UltraHDRLoader().setDataType(FloatType);
      const image = await new Promise<{ width: number; height: number; data: Float32Array }>((resolve) =>
        loader.parse(bytes.slice().buffer as ArrayBuffer, (t) => resolve(t as unknown as { width: number; height: number; data: Float32Array })),
      );
      expect(image.width).toBe(width);
      expect(image.height).toBe(height);
      const errors: number[] = [];
      let maxSource = 0, maxDecoded = 0;
      for (let i = 0; i < width * height; i++) {
        for (let c = 0; c < 3; c++) {
          const source = rgb[i * 3 + c];
          const decoded = image.data[i * 4 + c];
          errors.push(relativeError(decoded, source, 0.02));
          maxSource = Math.max(maxSource, source);
          maxDecoded = Math.max(maxDecoded, decoded);
        }
      }
      // Measured: median 0.1-0.7 %, 99th percentile 2.6-5.7 % (8-bit gain map, JPEG quantisation).
      expect(percentile(errors, 0.5)).toBeLessThan(0.02);
      expect(percentile(errors, 0.99)).toBeLessThan(0.1);
      // The brightest value (the sun, a soft box) comes back in range, far above SDR's 1.
      expect(maxDecoded).toBeGreaterThan(1);
      expect(Math.abs(Math.log2(maxDecoded / maxSource))).toBeLessThan(0.1);
    });
  }

  it('decodeGainMapJpeg gives half floats; a file that is not Ultra HDR is reported', async () => {
    const width = 32, height = 16;
    const rgb = new Float32Array(width * height * 3).fill(3);
    const image = await decodeGainMapJpeg(encodeGainMapJpeg(width, height, rgb).bytes.slice().buffer as ArrayBuffer);
    expect(image.width).toBe(width);
    expect(DataUtils.fromHalfFloat(image.data[0])).toBeGreaterThan(2.5);
    expect(DataUtils.fromHalfFloat(image.data[0])).toBeLessThan(3.5);
    const plain = jpeg.encode({ width: 8, height: 8, data: new Uint8Array(8 * 8 * 4).fill(128) }, 90).data;
    await expect(decodeGainMapJpeg(new Uint8Array(plain).buffer as ArrayBuffer, '/plain.jpg')).rejects.toThrow(/\/plain\.jpg is not a readable gain-map JPEG/);
  });
});

describe('generated assets', () => {
  const assets = generateAssets({ environmentHeight: 16, waterNormalsSize: 32, studioPrefilteredSize: 64 });
  const byPath = new Map(assets.map((a) => [a.path, a]));

  it('lists every environment in both formats in a catalog that passes the schema, hdr entries last', () => {
    const catalog = EnvironmentCatalog.parse(JSON.parse(new TextDecoder().decode(byPath.get(`${ENVIRONMENT_BASE}catalog.json`)!.bytes)));
    expect(catalog).toHaveLength(ENVIRONMENTS.length * 2);
    const formats = catalog.map((e) => e.format);
    expect(formats.indexOf('hdr')).toBe(ENVIRONMENTS.length);
    expect(formats.lastIndexOf('hdrjpeg')).toBe(ENVIRONMENTS.length - 1);
    for (const entry of catalog) {
      const asset = byPath.get(environmentUrl(entry));
      expect(asset, entry.path).toBeDefined();
      expect(asset!.contentType).toBe(entry.format === 'hdr' ? 'image/vnd.radiance' : 'image/jpeg');
    }
    for (const id of ['sky_dawn', 'sky_noon', 'sky_overcast', 'sky_sunset', 'sky_night', 'studio']) {
      expect(catalog.some((e) => e.id === id && e.format === 'hdrjpeg')).toBe(true);
      expect(catalog.some((e) => e.path === `${id}.hdr` && e.format === 'hdr')).toBe(true);
    }
  });

  it('makes a tileable water normal map as a JPEG at /textures/waternormals.jpg', () => {
    const normals = byPath.get(WATER_NORMALS_URL)!;
    const image = jpeg.decode(normals.bytes, { useTArray: true });
    expect([image.width, image.height]).toEqual([32, 32]);
    // Normals point up (blue) on average; the map repeats: its opposite edges are alike.
    let blue = 0, edge = 0;
    for (let y = 0; y < 32; y++) {
      blue += image.data[(y * 32 + 16) * 4 + 2];
      edge += Math.abs(image.data[(y * 32) * 4] - image.data[(y * 32 + 31) * 4]);
    }
    expect(blue / 32).toBeGreaterThan(200);
    expect(edge / 32).toBeLessThan(40);
  });

  it('is deterministic: the same bytes every run', () => {
    const again = generateAssets({ environmentHeight: 16, waterNormalsSize: 32, studioPrefilteredSize: 64 });
    expect(again.map((a) => a.path)).toEqual(assets.map((a) => a.path));
    again.forEach((a, i) => expect(Buffer.from(a.bytes).equals(Buffer.from(assets[i].bytes)), a.path).toBe(true));
  });
});

describe('environment catalog schema', () => {
  const entry = { id: 'x', name: 'X', path: 'x.hdr', format: 'hdr' };

  it('accepts entries with id, name, path and format', () => {
    expect(EnvironmentCatalog.parse([entry, { ...entry, id: 'y', path: 'dir/y.jpg', format: 'hdrjpeg' }])).toHaveLength(2);
  });

  it.each([
    ['a path leaving the base', { ...entry, path: '../secret.hdr' }],
    ['an absolute path', { ...entry, path: '/etc/passwd' }],
    ['a URL', { ...entry, path: 'https://elsewhere/x.hdr' }],
    ['an unknown format', { ...entry, format: 'exr' }],
    ['a missing name', { id: 'x', path: 'x.hdr', format: 'hdr' }],
  ])('refuses %s', (_, bad) => {
    expect(EnvironmentEntry.safeParse(bad).success).toBe(false);
  });

  it('refuses duplicate ids', () => {
    expect(EnvironmentCatalog.safeParse([entry, { ...entry, path: 'other.hdr' }]).success).toBe(false);
  });
});

describe('resolving and loading environments', () => {
  afterEach(() => vi.unstubAllGlobals());
  const catalog = async () => EnvironmentCatalog.parse([
    { id: 'sky_noon', name: 'Noon', path: 'sky_noon.jpg', format: 'hdrjpeg' },
    { id: 'sky_noon_hdr', name: 'Noon (HDR)', path: 'sky_noon.hdr', format: 'hdr' },
  ]);

  it('finds an entry by id or by path, takes a whole entry as is, and names what it cannot find', async () => {
    expect((await resolveEnvironment('sky_noon_hdr', catalog)).path).toBe('sky_noon.hdr');
    expect((await resolveEnvironment('sky_noon.jpg', catalog)).id).toBe('sky_noon');
    const own = { id: 'own', name: 'Own', path: 'own/file.hdr', format: 'hdr' as const };
    expect(await resolveEnvironment(own, catalog)).toBe(own);
    await expect(resolveEnvironment('nowhere', catalog)).rejects.toThrow("The environment 'nowhere' is not in the catalog.");
  });

  it('loads a path the catalog does not list by its extension; without a catalog, names the catalog problem', async () => {
    expect(await resolveEnvironment('extra/forest.hdr', catalog)).toMatchObject({ path: 'extra/forest.hdr', format: 'hdr' });
    const broken = async () => {
      throw new Error('catalog down');
    };
    expect((await resolveEnvironment('x.jpg', broken)).format).toBe('hdrjpeg');
    await expect(resolveEnvironment('sky_noon', broken)).rejects.toThrow('catalog down');
  });

  it('fetches the catalog through the schema and reports an HTTP failure or an invalid catalog', async () => {
    const fetchMock = vi.fn(async (url: string) => {
      if (url.endsWith('/good.json')) return new Response(JSON.stringify(await catalog()));
      if (url.endsWith('/bad.json')) return new Response(JSON.stringify([{ id: 'x' }]));
      return new Response('', { status: 404 });
    });
    vi.stubGlobal('fetch', fetchMock);
    expect(await fetchEnvironmentCatalog('/c/good.json')).toHaveLength(2);
    await fetchEnvironmentCatalog('/c/good.json');
    expect(fetchMock).toHaveBeenCalledTimes(1); // once per page
    await expect(fetchEnvironmentCatalog('/c/bad.json')).rejects.toThrow(/is not valid/);
    await expect(fetchEnvironmentCatalog('/c/missing.json')).rejects.toThrow('The environment catalog /c/missing.json could not be loaded: HTTP 404.');
  });

  it('loads an .hdr entry into an equirectangular half-float texture and reports a missing file', async () => {
    const hdr = encodeRadianceHdr(16, 8, new Float32Array(16 * 8 * 3).fill(1.5));
    vi.stubGlobal('fetch', async (url: string) => (url.endsWith('/ok.hdr') ? new Response(hdr.slice()) : new Response('', { status: 404 })));
    const texture = await loadEnvironmentTexture({ id: 'ok', name: 'ok', path: 'ok.hdr', format: 'hdr' });
    expect([texture.image.width, texture.image.height]).toEqual([16, 8]);
    expect(texture.type).toBe(HalfFloatType);
    expect(texture.mapping).toBe(303); // EquirectangularReflectionMapping
    await expect(loadEnvironmentTexture({ id: 'no', name: 'no', path: 'no.hdr', format: 'hdr' })).rejects.toThrow('/assets/environments/no.hdr could not be loaded: HTTP 404.');
  });
});
