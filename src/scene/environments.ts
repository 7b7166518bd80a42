import {
  ClampToEdgeWrapping,
  type CompressedCubeTexture,
  DataTexture,
  EquirectangularReflectionMapping,
  HalfFloatType,
  LinearFilter,
  LinearSRGBColorSpace,
  PMREMGenerator,
  RGBAFormat,
  type WebGLRenderer,
  type WebGLRenderTarget,
} from 'three';
import {
  ENVIRONMENT_CATALOG_URL,
  EnvironmentCatalog,
  EnvironmentEntry,
  environmentUrl,
  STUDIO_PREFILTERED_URL,
  type EnvironmentFormat,
} from '../protocol/environment';
import type { EnvironmentRef } from '../protocol/scene-settings';

/**
 * Environment maps: the catalog at /assets/environments/catalog.json and loaders for both of its
 * formats - Radiance .hdr (three's HDRLoader) and gain-map JPEG (three's UltraHDRLoader) - into a
 * PMREM-prefiltered environment for image-based lighting, keeping the equirectangular image for
 * the background.
 */

export interface LoadedEnvironment {
  entry: EnvironmentEntry;
  /** The equirectangular image (EquirectangularReflectionMapping, linear, half float). */
  texture: DataTexture;
  /** The prefiltered environment for scene.environment. */
  target: WebGLRenderTarget;
  dispose(): void;
}

const catalogs = new Map<string, Promise<EnvironmentCatalog>>();

/** The catalog (fetched once per page; a failed fetch is tried again next time). */
export function fetchEnvironmentCatalog(url = ENVIRONMENT_CATALOG_URL): Promise<EnvironmentCatalog> {
  let pending = catalogs.get(url);
  if (!pending) {
    pending = (async () => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`The environment catalog ${url} could not be loaded: HTTP ${response.status}.`);
      const parsed = EnvironmentCatalog.safeParse(await response.json());
      if (!parsed.success) throw new Error(`The environment catalog ${url} is not valid: ${parsed.error.issues[0]?.message ?? 'unknown problem'}.`);
      return parsed.data;
    })();
    catalogs.set(url, pending);
    pending.catch(() => catalogs.delete(url));
  }
  return pending;
}

/**
 * The catalog entry a scene's `environment` names: a whole entry as is; a string by id, then by
 * path. A string that names no entry but is a path with a known extension (.hdr, .jpg) is loaded
 * from that path, so a scene keeps working with an environment the catalog does not list.
 */
export async function resolveEnvironment(ref: Exclude<EnvironmentRef, null>, catalog: () => Promise<EnvironmentCatalog> = fetchEnvironmentCatalog): Promise<EnvironmentEntry> {
  if (typeof ref !== 'string') return ref;
  let entries: EnvironmentCatalog = [];
  let catalogError: unknown = null;
  try {
    entries = await catalog();
  } catch (error) {
    catalogError = error;
  }
  const found = entries.find((e) => e.id === ref) ?? entries.find((e) => e.path === ref);
  if (found) return found;
  const format = formatOfPath(ref);
  if (format) {
    const asPath = EnvironmentEntry.safeParse({ id: ref, name: ref, path: ref, format });
    if (asPath.success) return asPath.data;
  }
  if (catalogError) throw catalogError;
  throw new Error(`The environment '${ref}' is not in the catalog.`);
}

function formatOfPath(path: string): EnvironmentFormat | null {
  if (/\.hdr$/i.test(path)) return 'hdr';
  if (/\.jpe?g$/i.test(path)) return 'hdrjpeg';
  return null;
}

/**
 * The default studio prefiltered at build time (src/engine/prefiltered-cube.ts, a chunk of its own
 * fetched alongside the file): for the low tier, whose device would otherwise prefilter it on its
 * GPU before the first picture. The caller disposes the texture.
 */
export async function fetchPrefilteredStudio(url = STUDIO_PREFILTERED_URL, signal?: AbortSignal): Promise<CompressedCubeTexture> {
  const codec = import('../engine/prefiltered-cube');
  codec.catch(() => undefined);
  const response = await fetch(url, { signal });
  if (!response.ok) throw new Error(`${url} could not be loaded: HTTP ${response.status}`);
  const bytes = await response.arrayBuffer();
  const { decodePrefilteredCube, prefilteredCubeTexture } = await codec;
  try {
    return prefilteredCubeTexture(await decodePrefilteredCube(bytes));
  } catch (error) {
    throw new Error(`${url}: ${(error as Error).message}`);
  }
}

/** Downloads and decodes an entry's image into an equirectangular half-float texture. */
export async function loadEnvironmentTexture(entry: EnvironmentEntry, signal?: AbortSignal): Promise<DataTexture> {
  const url = environmentUrl(entry);
  const response = await fetch(url, { signal });
  if (!response.ok) throw new Error(`${url} could not be loaded: HTTP ${response.status}.`);
  const buffer = await response.arrayBuffer();
  // The decoders (three's HDR loaders) are a chunk of their own: most scenes use the studio environment.
  const { decodeRadiance, decodeGainMapJpeg } = await import('./environment-decoders');
  const image = entry.format === 'hdr' ? decodeRadiance(buffer, url) : await decodeGainMapJpeg(buffer, url);
  const texture = new DataTexture(image.data, image.width, image.height, RGBAFormat, HalfFloatType);
  texture.colorSpace = LinearSRGBColorSpace;
  texture.mapping = EquirectangularReflectionMapping;
  texture.wrapS = texture.wrapT = ClampToEdgeWrapping;
  texture.minFilter = texture.magFilter = LinearFilter;
  texture.generateMipmaps = false;
  // Both loaders give the top row first, as their own textures expect.
  texture.flipY = true;
  texture.name = entry.id;
  texture.needsUpdate = true;
  return texture;
}

/** Loads an entry and prefilters it for image-based lighting. */
export async function loadEnvironment(renderer: WebGLRenderer, entry: EnvironmentEntry, signal?: AbortSignal): Promise<LoadedEnvironment> {
  const texture = await loadEnvironmentTexture(entry, signal);
  return prefilterEnvironment(renderer, entry, texture);
}

/** PMREM-prefilters an equirectangular texture. */
export function prefilterEnvironment(renderer: WebGLRenderer, entry: EnvironmentEntry, texture: DataTexture): LoadedEnvironment {
  const pmrem = new PMREMGenerator(renderer);
  let target: WebGLRenderTarget;
  try {
    target = pmrem.fromEquirectangular(texture);
  } finally {
    pmrem.dispose();
  }
  return {
    entry,
    texture,
    target,
    dispose() {
      texture.dispose();
      target.dispose();
    },
  };
}
