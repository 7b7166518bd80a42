/** Helpers of the upload tests: corpus models and node extras. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Node } from '@gltf-transform/core';
import { MODELS_DIR } from '../helpers.ts';

export async function model(name: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(join(MODELS_DIR, name)));
}

export type JsonNode = { name?: string; mesh?: number; translation?: number[]; rotation?: number[]; scale?: number[]; children?: number[]; extras?: Record<string, unknown> };

export function extras(node: Node): Record<string, unknown> {
  return (node.getExtras() ?? {}) as Record<string, unknown>;
}
