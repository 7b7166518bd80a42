import { z } from 'zod';

/**
 * Mutations: the edits an editor saves to the model service (editor specification sections 3, 5
 * and 7; DESIGN.md 3 "Save" and 4.4). A mutation targets one node (updateNode) or one material
 * (updateMaterial, createMaterial) of one model and carries the changed properties.
 *
 * "Only the properties listed under the entity fields produce mutations; other properties are
 * ignored": every `properties` object below keeps the listed keys and drops any other key, while a
 * listed key with a value of the wrong type fails validation with a message naming the field.
 */

/** Largest batch one apply-mutations request may carry. */
export const MAX_MUTATIONS_PER_BATCH = 1000;

/** Node and material ids come from the model (glTF index or extras); a key names one edited
 *  attribute. Bounded so a stored log stays small. */
const MAX_ID_LENGTH = 256;

const id = (field: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${field} undefined.` : `${field} must be a string`) })
    .min(1, { error: `${field} must not be empty` })
    .max(MAX_ID_LENGTH, { error: `${field} must be at most ${MAX_ID_LENGTH} characters` });

const finite = (field: string) =>
  z.number({ error: `${field} must be a number` }).refine(Number.isFinite, { error: `${field} must be a finite number` });

const between = (field: string, min: number, max: number) =>
  finite(field)
    .refine((v) => v >= min, { error: `${field} must be at least ${min}` })
    .refine((v) => v <= max, { error: `${field} must be at most ${max}` });

const nonNegative = (field: string) => finite(field).refine((v) => v >= 0, { error: `${field} must not be negative` });

const bool = (field: string) => z.boolean({ error: `${field} must be true or false` });

const text = (field: string, max = 1000) =>
  z.string({ error: `${field} must be a string` }).max(max, { error: `${field} must be at most ${max} characters` });

/** A colour: a 24-bit number (three.js `Color.getHex()`) or a hex string '#rrggbb' / 'rrggbb'. */
const color = (field: string) => {
    const error = `${field} must be a colour: an integer 0..16777215 or a hex string '#rrggbb'`;
    return z.union([z.number({ error }).int({ error }).min(0, { error }).max(0xffffff, { error }), z.string({ error }).regex(/^#?[0-9a-fA-F]{6}$/, { error })], {
      error,
    });
  };

/** three.js wrapping modes: RepeatWrapping, ClampToEdgeWrapping, MirroredRepeatWrapping. */
export const WRAP_MODES = [1000, 1001, 1002] as const;
/** three.js NearestFilter, LinearFilter. */
export const MAG_FILTERS = [1003, 1006] as const;
/** three.js Nearest..., Linear... with and without mipmaps (1003-1008). */
export const MIN_FILTERS = [1003, 1004, 1005, 1006, 1007, 1008] as const;

const oneOf = (field: string, values: readonly number[]) =>
  z.number({ error: `${field} must be one of ${values.join(', ')}` }).refine((v) => values.includes(v), {
    error: `${field} must be one of ${values.join(', ')}`,
  });

/** Texture info (editor specification section 3): how a texture is sampled and placed. */
export const TextureInfo = z.object({
  wrapS: oneOf('wrapS', WRAP_MODES).optional(),
  wrapT: oneOf('wrapT', WRAP_MODES).optional(),
  magFilter: oneOf('magFilter', MAG_FILTERS).optional(),
  minFilter: oneOf('minFilter', MIN_FILTERS).optional(),
  /** Repeats of the texture: one number for both axes or [u, v]. */
  scale: z
    .union([finite('scale'), z.tuple([finite('scale[0]'), finite('scale[1]')])], { error: 'scale must be a number or [u, v]' })
    .optional(),
  /** Radians. */
  rotation: finite('rotation').optional(),
});
export type TextureInfo = z.infer<typeof TextureInfo>;

/** A texture map of a material: null removes the map; otherwise a texture (by the id addTexture
 *  returned, or the model's own) with its texture info. */
export const TextureMap = z.union([z.null(), TextureInfo.extend({ textureId: id('textureId').optional() })], {
  error: 'must be null or a texture object { textureId?, wrapS?, wrapT?, magFilter?, minFilter?, scale?, rotation? }',
});
export type TextureMap = z.infer<typeof TextureMap>;

/** The texture maps of a standard or physical material (three.js names). */
export const TEXTURE_MAP_PROPERTIES = [
  'map',
  'alphaMap',
  'aoMap',
  'bumpMap',
  'displacementMap',
  'emissiveMap',
  'lightMap',
  'metalnessMap',
  'normalMap',
  'roughnessMap',
  'anisotropyMap',
  'clearcoatMap',
  'clearcoatNormalMap',
  'clearcoatRoughnessMap',
  'iridescenceMap',
  'iridescenceThicknessMap',
  'sheenColorMap',
  'sheenRoughnessMap',
  'specularColorMap',
  'specularIntensityMap',
  'thicknessMap',
  'transmissionMap',
] as const;

const textureMaps = Object.fromEntries(TEXTURE_MAP_PROPERTIES.map((name) => [name, TextureMap.optional()])) as {
  [K in (typeof TEXTURE_MAP_PROPERTIES)[number]]: z.ZodOptional<typeof TextureMap>;
};

/** Node fields that produce mutations (editor specification section 3, "Node"). */
const objectError = (field: string) => ({ error: `${field} must be an object` });

export const NodeProperties = z.object({
  name: text('name').optional(),
  visible: bool('visible').optional(),
  castShadow: bool('castShadow').optional(),
  receiveShadow: bool('receiveShadow').optional(),
  /** The local matrix, 16 numbers in column-major order (three.js Matrix4.elements). */
  matrix: z
    .array(finite('matrix element'), { error: 'matrix must be an array of 16 numbers' })
    .length(16, { error: 'matrix must have exactly 16 numbers' })
    .optional(),
  /** The nodeId of the new parent; null for the model's root. */
  parent: id('parent').nullable().optional(),
  /** The materialId the node's mesh uses. */
  material: id('material').optional(),
}, objectError('properties'));
export type NodeProperties = z.infer<typeof NodeProperties>;

/**
 * Material fields that produce mutations (editor specification section 3, "Material"): the
 * spec's `attenuation` is three.js's pair attenuationColor + attenuationDistance.
 */
export const MaterialProperties = z.object({
  name: text('name').optional(),
  color: color('color').optional(),
  opacity: between('opacity', 0, 1).optional(),
  metalness: between('metalness', 0, 1).optional(),
  roughness: between('roughness', 0, 1).optional(),
  transmission: between('transmission', 0, 1).optional(),
  dispersion: nonNegative('dispersion').optional(),
  clearcoat: between('clearcoat', 0, 1).optional(),
  sheen: between('sheen', 0, 1).optional(),
  ior: between('ior', 1, 2.333).optional(),
  iridescence: between('iridescence', 0, 1).optional(),
  attenuationColor: color('attenuationColor').optional(),
  attenuationDistance: z
    .number({ error: 'attenuationDistance must be a number' })
    .refine((v) => !Number.isNaN(v) && v > 0, { error: 'attenuationDistance must be greater than 0' })
    .optional(),
  thickness: nonNegative('thickness').optional(),
  emissive: color('emissive').optional(),
  emissiveIntensity: nonNegative('emissiveIntensity').optional(),
  normalScale: z.tuple([finite('normalScale[0]'), finite('normalScale[1]')], { error: 'normalScale must be [x, y]' }).optional(),
  ...textureMaps,
}, objectError('properties'));
export type MaterialProperties = z.infer<typeof MaterialProperties>;

export const MUTATION_TYPES = ['updateNode', 'updateMaterial', 'createMaterial'] as const;
export type MutationType = (typeof MUTATION_TYPES)[number];

/** The common fields of every mutation. */
const base = {
  /** What the edit is about (e.g. `{nodeId}/matrix`); a queued mutation with the same key as the
   *  last one replaces it on the client. */
  key: text('key', 512).min(1, { error: 'key must not be empty' }),
  /** Unique per mutation: saving is idempotent by uuid. */
  uuid: z
    .string({ error: (issue) => (issue.input === undefined ? 'uuid undefined.' : 'uuid must be a string') })
    .regex(/^[A-Za-z0-9_-]{1,100}$/, { error: 'uuid must be 1-100 characters of A-Z a-z 0-9 _ -' }),
  /** When the edit was made: ms since the Unix epoch, or an ISO 8601 date-time string. */
  createdAt: z.union([z.number().int().nonnegative(), z.iso.datetime({ offset: true })], {
    error: 'createdAt must be milliseconds since 1970 or an ISO 8601 date-time',
  }),
};

export const UpdateNodeMutation = z.object({
  ...base,
  type: z.literal('updateNode'),
  nodeId: id('nodeId'),
  properties: NodeProperties,
}, objectError('mutation'));
export const UpdateMaterialMutation = z.object({
  ...base,
  type: z.literal('updateMaterial'),
  materialId: id('materialId'),
  properties: MaterialProperties,
}, objectError('mutation'));
export const CreateMaterialMutation = z.object({
  ...base,
  type: z.literal('createMaterial'),
  materialId: id('materialId'),
  /** The new material's name. */
  name: text('name'),
  properties: MaterialProperties,
}, objectError('mutation'));

export const Mutation = z.discriminatedUnion('type', [UpdateNodeMutation, UpdateMaterialMutation, CreateMaterialMutation], {
  error: (issue) => {
    if (typeof issue.input !== 'object' || issue.input === null || Array.isArray(issue.input)) return 'each mutation must be an object';
    return `type must be one of ${MUTATION_TYPES.join(', ')}`;
  },
});
export type Mutation = z.infer<typeof Mutation>;

/** POST /v1/models/{modelId}/apply-mutations */
export const ApplyMutationsRequest = z.object({
  mutations: z
    .array(Mutation, { error: (issue) => (issue.input === undefined ? 'mutations undefined: send { "mutations": [...] }' : 'mutations must be a list') })
    .max(MAX_MUTATIONS_PER_BATCH, { error: `at most ${MAX_MUTATIONS_PER_BATCH} mutations per request` }),
}, { error: 'the body must be a JSON object { "mutations": [...] }' });
export type ApplyMutationsRequest = z.infer<typeof ApplyMutationsRequest>;

/** Where each mutation of a batch stands in the model's log; the same for a repeated batch. */
export const SavedMutation = z.object({ uuid: z.string(), seq: z.number().int().positive() });
export type SavedMutation = z.infer<typeof SavedMutation>;

export const ApplyMutationsResponse = z.object({
  modelId: z.string(),
  /** One entry per mutation of the request, in its order. */
  saved: z.array(SavedMutation),
});
export type ApplyMutationsResponse = z.infer<typeof ApplyMutationsResponse>;

/** A mutation in the saved log: as saved (unknown properties dropped) plus its place. */
export const LoggedMutation = z.intersection(Mutation, z.object({ seq: z.number().int().positive(), savedAt: z.string() }));
export type LoggedMutation = z.infer<typeof LoggedMutation>;

/** GET /v1/models/{modelId}/mutations[?after=SEQ&limit=N] */
export const MutationLogResponse = z.object({
  modelId: z.string(),
  /** In the order they were saved (ascending seq). */
  mutations: z.array(LoggedMutation),
  /** The seq of the last saved mutation of the model (0: none), whatever the page. */
  lastSeq: z.number().int().nonnegative(),
});
export type MutationLogResponse = z.infer<typeof MutationLogResponse>;

/** `mutations[3].properties.opacity` from a zod issue path. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out || '(body)';
}

/** One line naming the first problems of a failed parse: `field: message; field: message`. */
export function describeZodError(error: z.ZodError, max = 5): string {
  const issues = error.issues.slice(0, max).map((issue) => {
    const path = formatIssuePath(issue.path);
    // Our messages already start with the field's name; prefix the full path.
    return `${path}: ${issue.message}`;
  });
  const more = error.issues.length > max ? ` (and ${error.issues.length - max} more)` : '';
  return issues.join('; ') + more;
}
