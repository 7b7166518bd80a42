import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { JSONDocument } from '@gltf-transform/core';
import { unpartition } from '@gltf-transform/functions';
import { detectAssetFormat } from '../../protocol/container-header.ts';
import { ModelFormatError, checkGlb } from '../../protocol/glb.ts';
import { CONFIG_DEFAULTS } from '../config.ts';
import { createModelIO } from './io.ts';
import { ImportError, tooLarge } from './errors.ts';

/**
 * A model file as given (a .glb, or a .gltf with its .bin and images uploaded with it or next to it
 * on disk, or embedded as data URIs) turned into the one GLB that goes into a container, with the
 * structural checks the viewer makes (src/protocol/glb.ts), so the server stores exactly what the
 * viewer accepts. Every refusal is an ImportError with a sentence a person can act on.
 */

export { ImportError, tooLarge, type ImportErrorCode } from './errors.ts';

type GltfJson = JSONDocument['json'];

function invalid(fileName: string, reason: string): ImportError {
  return new ImportError('INVALID_GLTF', `${fileName}: ${reason}`);
}

function parseGltfJson(fileName: string, bytes: Uint8Array): GltfJson {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    throw invalid(fileName, 'The glTF JSON starts with a byte order mark, which glTF forbids.');
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    throw invalid(fileName, `The glTF JSON cannot be parsed: ${(error as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw invalid(fileName, 'The glTF JSON is not an object.');
  const asset = (json as { asset?: { version?: unknown } }).asset;
  if (typeof asset !== 'object' || asset === null || asset.version === undefined) throw invalid(fileName, 'The glTF asset has no asset.version.');
  if (typeof asset.version !== 'string' || !/^2\.\d+$/.test(asset.version)) {
    throw invalid(fileName, `The glTF asset version is ${String(asset.version)}; only glTF 2.x is supported.`);
  }
  return json as GltfJson;
}

const DATA_URI = /^data:([^,;]*)((?:;[^,;=]+=[^,;]*)*)(;base64)?,(.*)$/s;

/** The bytes of a data URI, or undefined when it is not a well-formed one. */
function decodeDataUri(uri: string): Uint8Array | undefined {
  const match = DATA_URI.exec(uri);
  if (!match) return undefined;
  const [, , , base64, payload] = match;
  if (base64) {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload.replace(/\s+/g, ''))) return undefined;
    return Uint8Array.from(Buffer.from(payload, 'base64'));
  }
  try {
    return Uint8Array.from(Buffer.from(decodeURIComponent(payload), 'latin1'));
  } catch {
    return undefined;
  }
}

const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:/i;

interface Resource {
  uri?: string;
  byteLength?: number;
}

/**
 * The viewer's own structural check (header, chunks, buffers: src/protocol/glb.ts), so the server
 * stores exactly what the viewer accepts; plus images, which must live inside the GLB too.
 */
function checkGlbAsset(fileName: string, bytes: Uint8Array): void {
  let json: GltfJson;
  try {
    json = checkGlb(bytes).json as GltfJson;
  } catch (error) {
    if (error instanceof ModelFormatError) throw invalid(fileName, error.message);
    throw error;
  }
  const images = (json.images ?? []) as Resource[];
  images.forEach((image, i) => {
    if (image.uri === undefined) return;
    if (typeof image.uri !== 'string' || !image.uri.startsWith('data:')) {
      throw invalid(fileName, `glTF image ${i} refers to the external file "${String(image.uri).slice(0, 80)}"; a GLB must contain all its data.`);
    }
    if (!decodeDataUri(image.uri)) throw invalid(fileName, `glTF image ${i} has a malformed data URI.`);
  });
}

/** Reads the external buffers and images of a .gltf from `dir` (undefined: none may exist). */
async function readResources(
  fileName: string,
  json: GltfJson,
  dir: string | undefined,
  limit: { used: number; maxBytes: number },
  provided?: Record<string, Uint8Array>,
): Promise<Record<string, Uint8Array<ArrayBuffer>>> {
  const resources: Record<string, Uint8Array<ArrayBuffer>> = {};
  const entries: [string, Resource][] = [
    ...((json.buffers ?? []) as Resource[]).map((r, i): [string, Resource] => [`buffer ${i}`, r]),
    ...((json.images ?? []) as Resource[]).map((r, i): [string, Resource] => [`image ${i}`, r]),
  ];
  let total = limit.used;
  for (const [what, resource] of entries) {
    const uri = resource.uri;
    // No uri: an image in a buffer view, or a placeholder buffer (EXT_meshopt_compression fallback).
    if (uri === undefined) continue;
    if (uri.startsWith('data:')) {
      const data = decodeDataUri(uri);
      if (!data) throw invalid(fileName, `glTF ${what} has a malformed data URI.`);
      total += data.byteLength;
    } else {
      if (ABSOLUTE_URL.test(uri) || uri.startsWith('//')) {
        throw new ImportError('MISSING_RESOURCE', `${fileName}: glTF ${what} refers to "${uri}"; only files next to the .gltf and data URIs are supported.`);
      }
      if (uri in resources) continue;
      const uploaded = provided && findProvided(provided, uri);
      if (uploaded) {
        resources[uri] = Uint8Array.from(uploaded);
        total += uploaded.byteLength;
        if (total > limit.maxBytes) throw tooLarge(fileName, limit.maxBytes);
        continue;
      }
      if (dir === undefined) {
        throw new ImportError(
          'MISSING_RESOURCE',
          `${fileName}: glTF ${what} refers to the external file "${uri}", which was not provided: upload it with the .gltf, import the .gltf from disk with its files next to it, or use a .glb.`,
        );
      }
      let path: string;
      try {
        path = resolve(dir, decodeURIComponent(uri));
      } catch {
        path = resolve(dir, uri);
      }
      try {
        resources[uri] = new Uint8Array(await readFile(path));
      } catch (error) {
        throw new ImportError('MISSING_RESOURCE', `${fileName}: Cannot read glTF ${what} "${uri}": ${(error as Error).message}`);
      }
      total += resources[uri].byteLength;
    }
    if (total > limit.maxBytes) throw tooLarge(fileName, limit.maxBytes);
  }
  return resources;
}

/** An uploaded companion file by the uri the glTF uses: as written, URL-decoded, or by its base name. */
function findProvided(provided: Record<string, Uint8Array>, uri: string): Uint8Array | undefined {
  let decoded = uri;
  try {
    decoded = decodeURIComponent(uri);
  } catch {
    // not percent-encoded
  }
  return provided[uri] ?? provided[decoded] ?? provided[basename(decoded)];
}

/** Packs a .gltf and its resources into one GLB. */
async function packGltf(fileName: string, json: GltfJson, resources: Record<string, Uint8Array<ArrayBuffer>>): Promise<Uint8Array> {
  try {
    const io = await createModelIO(((json.extensionsUsed ?? []) as string[]).includes('KHR_draco_mesh_compression'));
    const doc = await io.readJSON({ json, resources });
    await doc.transform(unpartition());
    return await io.writeBinary(doc);
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw invalid(fileName, `The glTF file cannot be packed into a GLB: ${(error as Error).message}`);
  }
}

/** Checks and converts a model file to the GLB or glTF asset that goes into the container. */
export async function prepareAsset(
  fileName: string,
  bytes: Uint8Array,
  options: { dir?: string; maxBytes?: number; resources?: Record<string, Uint8Array> } = {},
): Promise<Uint8Array> {
  const maxBytes = options.maxBytes ?? CONFIG_DEFAULTS.MAX_ASSET_BYTES;
  if (bytes.byteLength > maxBytes) throw tooLarge(fileName, maxBytes);
  const format = detectAssetFormat(bytes);
  if (format === 'glb') {
    checkGlbAsset(fileName, bytes);
    return bytes;
  }
  if (format === 'gltf') {
    const json = parseGltfJson(fileName, bytes);
    const resources = await readResources(fileName, json, options.dir, { used: bytes.byteLength, maxBytes }, options.resources);
    const glb = await packGltf(fileName, json, resources);
    if (glb.byteLength > maxBytes) throw tooLarge(fileName, maxBytes);
    checkGlbAsset(fileName, glb);
    return glb;
  }
  throw new ImportError('UNKNOWN_FORMAT', `${fileName}: Unknown file format (expected a glTF 2.0 .glb or .gltf file)`);
}

/**
 * The files a .gltf refers to, for the validator: uploaded ones, or read from `dir`; missing ones
 * are left out (the validator reports them). Data URIs are the validator's own business.
 */
export async function resourcesForValidation(bytes: Uint8Array, dir: string | undefined, provided: Record<string, Uint8Array> | undefined): Promise<Record<string, Uint8Array>> {
  const found: Record<string, Uint8Array> = {};
  let json: GltfJson;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes)) as GltfJson;
  } catch {
    return found;
  }
  const entries = [...((json.buffers ?? []) as Resource[]), ...((json.images ?? []) as Resource[])];
  for (const { uri } of entries) {
    if (typeof uri !== 'string' || uri.startsWith('data:') || uri in found || ABSOLUTE_URL.test(uri) || uri.startsWith('//')) continue;
    const uploaded = provided && findProvided(provided, uri);
    if (uploaded) {
      found[uri] = uploaded;
    } else if (dir !== undefined) {
      try {
        found[uri] = new Uint8Array(await readFile(resolve(dir, decodeURIComponent(uri))));
      } catch {
        // reported by the validator
      }
    }
  }
  return found;
}

