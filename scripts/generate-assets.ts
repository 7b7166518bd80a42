/**
 * Static assets our own code makes, at build time (vite.config.ts writes them into dist/ and
 * serves them in dev), never committed as binaries:
 *
 *  - /assets/environments/{id}.jpg and {id}.hdr: procedural skies (dawn, noon, overcast, sunset,
 *    night) and a studio, each as a gain-map JPEG ('hdrjpeg') and a Radiance file ('hdr');
 *  - /assets/environments/catalog.json: the catalog (id, name, path, format), hdr entries last;
 *  - /assets/environments/studio-128.pmrem: the default studio prefiltered for the low tier
 *    (scripts/assets/studio-prefiltered.ts; about 1.7 s of the build);
 *  - /textures/waternormals.jpg: the tileable normal map three.js' Water animates;
 *  - /assets/images/comment-cursor-4.png: the comment tool's cursor (issue 16).
 *
 * Deterministic (same bytes every run) and fast (a few seconds). Run alone:
 *   npx tsx scripts/generate-assets.ts [outDir]      (default: dist)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import jpeg from 'jpeg-js';
import { ENVIRONMENT_BASE, EnvironmentCatalog, STUDIO_PREFILTERED_SIZE, STUDIO_PREFILTERED_URL, type EnvironmentEntry } from '../src/protocol/environment';
import { encodePrefilteredStudio } from './assets/studio-prefiltered';
import { WATER_NORMALS_URL } from '../src/protocol/scene-settings';
import { encodeGainMapJpeg } from './assets/gain-map-jpeg';
import { encodeRadianceHdr } from './assets/radiance-hdr';
import { ENVIRONMENTS, renderEnvironment } from './assets/skies';
import { renderWaterNormals } from './assets/water-normals';
import { COMMENT_CURSOR_SIZE, renderCommentCursor } from './assets/comment-cursor';
import { encodePng } from '../src/protocol/png';
import { COMMENT_CURSOR_URL } from '../src/protocol/comments';

export interface GeneratedAsset {
  /** URL path from the site root, e.g. /assets/environments/sky_noon.hdr */
  path: string;
  contentType: string;
  bytes: Uint8Array;
}

export interface GenerateOptions {
  /** Equirect size of the environments (width = 2 * height). */
  environmentHeight?: number;
  waterNormalsSize?: number;
  /** Only these environment ids (all when absent). */
  only?: string[];
  /** Face size the studio is prefiltered at (tests make it small; the file keeps its URL). */
  studioPrefilteredSize?: number;
}

export const ENVIRONMENT_HEIGHT = 512;
export const WATER_NORMALS_SIZE = 512;

/** Every generated asset, catalog included. */
export function generateAssets(options: GenerateOptions = {}): GeneratedAsset[] {
  const height = options.environmentHeight ?? ENVIRONMENT_HEIGHT;
  const width = height * 2;
  const assets: GeneratedAsset[] = [];
  const jpegEntries: EnvironmentEntry[] = [];
  const hdrEntries: EnvironmentEntry[] = [];
  for (const env of ENVIRONMENTS) {
    if (options.only && !options.only.includes(env.id)) continue;
    const rgb = renderEnvironment(env.preset, width, height);
    const jpg = encodeGainMapJpeg(width, height, rgb);
    assets.push({ path: `${ENVIRONMENT_BASE}${env.id}.jpg`, contentType: 'image/jpeg', bytes: jpg.bytes });
    jpegEntries.push({ id: env.id, name: env.name, path: `${env.id}.jpg`, format: 'hdrjpeg' });
    const hdr = encodeRadianceHdr(width, height, rgb, `${env.name}: procedural environment`);
    assets.push({ path: `${ENVIRONMENT_BASE}${env.id}.hdr`, contentType: 'image/vnd.radiance', bytes: hdr });
    hdrEntries.push({ id: `${env.id}_hdr`, name: `${env.name} (Radiance HDR)`, path: `${env.id}.hdr`, format: 'hdr' });
  }
  const catalog = EnvironmentCatalog.parse([...jpegEntries, ...hdrEntries]);
  assets.push({
    path: `${ENVIRONMENT_BASE}catalog.json`,
    contentType: 'application/json',
    bytes: new TextEncoder().encode(JSON.stringify(catalog, null, 2) + '\n'),
  });

  assets.push({ path: STUDIO_PREFILTERED_URL, contentType: 'application/octet-stream', bytes: encodePrefilteredStudio(options.studioPrefilteredSize ?? STUDIO_PREFILTERED_SIZE) });

  const normals = renderWaterNormals({ size: options.waterNormalsSize ?? WATER_NORMALS_SIZE });
  const normalsJpeg = jpeg.encode({ width: normals.size, height: normals.size, data: normals.rgba }, 92).data;
  assets.push({ path: WATER_NORMALS_URL, contentType: 'image/jpeg', bytes: new Uint8Array(normalsJpeg) });
  assets.push({ path: COMMENT_CURSOR_URL, contentType: 'image/png', bytes: encodePng(COMMENT_CURSOR_SIZE, COMMENT_CURSOR_SIZE, renderCommentCursor()) });
  return assets;
}

/** Writes assets below `outDir` by their URL paths. */
export function writeAssets(outDir: string, assets: GeneratedAsset[]): void {
  for (const asset of assets) {
    const file = join(outDir, ...asset.path.split('/').filter(Boolean));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, asset.bytes);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = resolve(process.argv[2] ?? 'dist');
  const t0 = performance.now();
  const assets = generateAssets();
  const t1 = performance.now();
  writeAssets(outDir, assets);
  for (const a of assets) console.log(`${(a.bytes.length / 1024).toFixed(0).padStart(7)} KiB  ${a.path}`);
  console.log(`${assets.length} files generated in ${((t1 - t0) / 1000).toFixed(2)} s, written to ${outDir}`);
}
