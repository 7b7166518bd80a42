import validator from 'gltf-validator';
import type { ValidatorMessage, ValidatorReport } from 'gltf-validator';
import type { ValidationMessage, ValidationReport, ValidationSeverity } from '../../protocol/upload.ts';
import { jsonDepth } from '../json-depth.ts';

/**
 * Khronos's glTF-Validator on a model as uploaded (GLB, or .gltf with its files). Its messages go
 * back to the user as they are. Errors refuse the upload, except the few that the optimisation
 * repairs for certain (REPAIRED_ERRORS, see ./repairs.ts): they are reported with `repaired`.
 */

/** At most this many messages go back in a report (the counts cover all of them). */
export const MAX_REPORTED_MESSAGES = 200;

/**
 * Validator errors that the optimisation repairs for certain, with what it does. Files in the field
 * have them (several corpus models do) and three.js draws them fine; refusing them would refuse
 * good models, and the stored model no longer has them (the tests check that).
 */
export const REPAIRED_ERRORS: Readonly<Record<string, string>> = {
  ACCESSOR_MIN_MISMATCH: 'accessor bounds are recomputed from the data',
  ACCESSOR_MAX_MISMATCH: 'accessor bounds are recomputed from the data',
  ACCESSOR_ELEMENT_OUT_OF_MIN_BOUND: 'accessor bounds are recomputed from the data',
  ACCESSOR_ELEMENT_OUT_OF_MAX_BOUND: 'accessor bounds are recomputed from the data',
  SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE: 'buffer views are rewritten',
  ANIMATION_SAMPLER_ACCESSOR_WITH_BYTESTRIDE: 'buffer views are rewritten',
  ACCESSOR_WEIGHTS_NON_NORMALIZED: 'skin weights are normalised',
  MESH_PRIMITIVE_NO_TANGENT_SPACE: 'tangents are generated (MikkTSpace)',
  NODE_SKIN_NO_SCENE: "the skeleton's root node is added to the scene",
};

const SEVERITIES: readonly ValidationSeverity[] = ['error', 'warning', 'info', 'hint'];

export interface ValidateOptions {
  /** The uploaded file's name: the report's uri, and the format when the bytes do not tell. */
  fileName: string;
  /** Files a .gltf refers to, by their uri as written in the glTF (URL-decoded or not). */
  resources?: Record<string, Uint8Array>;
  /** Mark REPAIRED_ERRORS as repaired (default true). */
  repairs?: boolean;
}

/** 'glb' when the bytes start with the GLB magic, 'gltf' when they look like JSON, else by name. */
function detectFormat(bytes: Uint8Array, fileName: string): 'glb' | 'gltf' {
  if (bytes.length >= 4 && bytes[0] === 0x67 && bytes[1] === 0x6c && bytes[2] === 0x54 && bytes[3] === 0x46) return 'glb';
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  if (bytes[i] === 0x7b) return 'gltf';
  return /\.gltf$/i.test(fileName) ? 'gltf' : 'glb';
}

function lookupResource(resources: Record<string, Uint8Array>, uri: string): Uint8Array | undefined {
  if (uri in resources) return resources[uri];
  try {
    const decoded = decodeURIComponent(uri);
    if (decoded in resources) return resources[decoded];
  } catch {
    // not percent-encoded
  }
  return undefined;
}

function toReport(raw: ValidatorReport, repairs: boolean): ValidationReport {
  const all = raw.issues.messages.map((m: ValidatorMessage): ValidationMessage => {
    const message: ValidationMessage = { severity: SEVERITIES[m.severity] ?? 'info', code: m.code, message: m.message };
    if (m.pointer !== undefined) message.pointer = m.pointer;
    if (m.offset !== undefined) message.offset = m.offset;
    if (repairs && m.severity === 0 && m.code in REPAIRED_ERRORS) message.repaired = true;
    return message;
  });
  // Refusing errors first, then repaired ones, then the other severities; stable within each.
  const rank = (m: ValidationMessage) => SEVERITIES.indexOf(m.severity) * 2 + (m.repaired ? 1 : 0);
  const sorted = all.map((m, i) => ({ m, i })).sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i).map(({ m }) => m);
  return {
    validatorVersion: raw.validatorVersion,
    errors: raw.issues.numErrors,
    warnings: raw.issues.numWarnings,
    infos: raw.issues.numInfos,
    hints: raw.issues.numHints,
    repaired: all.filter((m) => m.repaired).length,
    messages: sorted.slice(0, MAX_REPORTED_MESSAGES),
    truncated: raw.issues.truncated || sorted.length > MAX_REPORTED_MESSAGES,
  };
}

/**
 * The deepest nesting a glTF's JSON may have. Real files nest a dozen levels (extras a few more);
 * the validator and gltf-transform recurse, and 100,000 levels overflow their stack.
 */
export const MAX_GLTF_JSON_DEPTH = 256;

/** The JSON of a .gltf, or of a GLB's first chunk (whatever its declared length, clamped to the file). */
function jsonPart(bytes: Uint8Array, format: 'glb' | 'gltf'): Uint8Array {
  if (format === 'gltf') return bytes;
  if (bytes.byteLength < 20) return new Uint8Array(0);
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(12, true);
  return bytes.subarray(20, Math.min(bytes.byteLength, 20 + length));
}

/** A report of one refusing error that the validator did not give (it could not run on the file). */
function oneError(code: string, message: string): ValidationReport {
  return {
    validatorVersion: validator.version(),
    errors: 1,
    warnings: 0,
    infos: 0,
    hints: 0,
    repaired: 0,
    messages: [{ severity: 'error', code, message, pointer: '' }],
    truncated: false,
  };
}

/** Runs Khronos's glTF-Validator over a GLB or a .gltf (with `resources`). Never throws for bad content. */
export async function validateModel(bytes: Uint8Array, options: ValidateOptions): Promise<ValidationReport> {
  const resources = options.resources ?? {};
  const format = detectFormat(bytes, options.fileName);
  const depth = jsonDepth(jsonPart(bytes, format));
  if (depth > MAX_GLTF_JSON_DEPTH) {
    return oneError('JSON_TOO_DEEP', `The glTF JSON is nested ${depth} levels deep; at most ${MAX_GLTF_JSON_DEPTH} are allowed.`);
  }
  let raw: ValidatorReport;
  try {
    raw = await validator.validateBytes(bytes, {
      uri: options.fileName,
      format,
      maxIssues: 0,
      writeTimestamp: false,
      externalResourceFunction: async (uri: string) => {
        const data = lookupResource(resources, uri);
        if (!data) throw new Error(`The file "${uri}" was not uploaded with the glTF.`);
        return data;
      },
    });
  } catch (error) {
    // The validator rejects (with a string) only when it cannot start, or throws when it fails on
    // the file (its stack, its memory): say so as one error.
    return oneError('VALIDATOR_FAILED', String(error instanceof Error ? error.message : error));
  }
  return toReport(raw, options.repairs ?? true);
}

/** True when the report has errors that refuse the file (errors the optimisation does not repair). */
export function refuses(report: ValidationReport): boolean {
  return report.errors - report.repaired > 0;
}

/** One line for the user: how many refusing errors and the first of them. */
export function describeRefusal(fileName: string, report: ValidationReport): string {
  const count = report.errors - report.repaired;
  const first = report.messages.find((m) => m.severity === 'error' && !m.repaired);
  const where = first?.pointer ? ` at ${first.pointer}` : '';
  const detail = first ? `: ${first.code}${where}: ${first.message}` : '';
  return `${fileName}: the glTF validator found ${count} error${count === 1 ? '' : 's'}${detail}`;
}
