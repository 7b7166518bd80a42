import { z } from 'zod';
import { changeList, changesBody } from './change-batch.ts';
import { INLINE_INSTANCE_LIMIT } from './instances.ts';
import { AMBIENT_INTENSITY, DIRECTIONAL_INTENSITY, MAX_SHADOW_MAPS, PERSPECTIVE_CAMERA_DEFAULTS, POINT_LIGHT_SHADOW_COST, SPOT_LIGHT_DEFAULTS } from './constants.ts';

/**
 * Scene objects: the lights, cameras and groups an editor adds to a scene (editor specification
 * section 3, "Light node types"; section 9 defaults). They are kept in the scene's
 * `viewerConfig.objects`, one entry per object, and changed by small, atomic, idempotent changes
 * (POST /v1/scenes/{id}/object-changes): a change puts one object whole or removes one, and
 * carries a uuid; a change whose uuid the scene has seen is skipped, so a repeated request changes
 * nothing and one changed light never rewrites the scene.
 */

export const SCENE_OBJECT_TYPES = ['Group', 'PointLight', 'AmbientLight', 'DirectionalLight', 'RectAreaLight', 'SpotLight', 'HemisphereLight', 'PerspectiveCamera', 'InstancedAssetGroup'] as const;
export type SceneObjectType = (typeof SCENE_OBJECT_TYPES)[number];

/** At most this many scene objects per scene. */
export const MAX_SCENE_OBJECTS = 1000;
/** At most this many changes per request. */
export const MAX_OBJECT_CHANGES_PER_BATCH = 1000;
/** The uuids of the last this-many applied changes are remembered (a repeated request is skipped). */
export const OBJECT_CHANGE_MEMORY = 2000;

const ID = /^[A-Za-z0-9_-]{1,100}$/;
const objectId = (field: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${field} undefined.` : `${field} must be a string`) })
    .regex(ID, { error: `${field} must be 1-100 characters of A-Z a-z 0-9 _ -` });

const num = (field: string) => z.number({ error: `${field} must be a number` }).refine(Number.isFinite, { error: `${field} must be a finite number` });
const nonNegative = (field: string) => num(field).refine((v) => v >= 0, { error: `${field} must not be negative` });
const color = (field: string) => z.number({ error: `${field} must be a colour (0xrrggbb)` }).int({ error: `${field} must be a colour (0xrrggbb)` }).min(0).max(0xffffff, { error: `${field} must be a colour (0xrrggbb)` });

/** One scene object as saved. Light and camera fields apply to the types that have them. */
export const SceneObject = z.object({
  uuid: objectId('uuid'),
  type: z.enum(SCENE_OBJECT_TYPES, { error: `type must be one of ${SCENE_OBJECT_TYPES.join(', ')}` }),
  name: z.string({ error: 'name must be a string' }).max(200, { error: 'name must be at most 200 characters' }),
  /** The uuid of the parent scene object; null for the scene's root. */
  parent: objectId('parent').nullable(),
  position: z.tuple([num('position'), num('position'), num('position')], { error: 'position must be [x, y, z]' }),
  /** A unit quaternion [x, y, z, w]. */
  quaternion: z.tuple([num('quaternion'), num('quaternion'), num('quaternion'), num('quaternion')], { error: 'quaternion must be [x, y, z, w]' }),
  scale: z.tuple([num('scale'), num('scale'), num('scale')], { error: 'scale must be [x, y, z]' }),
  visible: z.boolean({ error: 'visible must be true or false' }),
  castShadow: z.boolean({ error: 'castShadow must be true or false' }).optional(),
  color: color('color').optional(),
  /** HemisphereLight: the colour from below. */
  groundColor: color('groundColor').optional(),
  intensity: nonNegative('intensity').optional(),
  /** Point and spot lights: 0 is unlimited. */
  distance: nonNegative('distance').optional(),
  decay: nonNegative('decay').optional(),
  /** SpotLight: radians, at most pi/2. */
  angle: num('angle').refine((v) => v > 0 && v <= Math.PI / 2, { error: 'angle must be in (0, pi/2]' }).optional(),
  penumbra: num('penumbra').refine((v) => v >= 0 && v <= 1, { error: 'penumbra must be between 0 and 1' }).optional(),
  /** RectAreaLight size. */
  width: nonNegative('width').optional(),
  height: nonNegative('height').optional(),
  /** PerspectiveCamera. */
  fov: num('fov').refine((v) => v > 0 && v < 180, { error: 'fov must be between 0 and 180' }).optional(),
  near: num('near').refine((v) => v > 0, { error: 'near must be positive' }).optional(),
  far: num('far').refine((v) => v > 0, { error: 'far must be positive' }).optional(),
  /** InstancedAssetGroup: the asset on the asset CDN ({assetCdn}/assets/{assetId}/model.3dxa). */
  assetId: z.string({ error: 'assetId must be a string' }).regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'assetId must be 1-64 characters of A-Z a-z 0-9 _ -' }).optional(),
  /**
   * InstancedAssetGroup, the spec's shape for short groups: one three.js-order 4x4 (16 numbers) per
   * instance, ids 0..n-1. On a putObject it replaces the group's instances; the saved object never
   * keeps it (the instances live in the group's binary instance set, src/protocol/instances.ts).
   */
  matrices: z
    .array(z.array(num('matrices'), { error: 'matrices must be a list of 16-number matrices' }).length(16, { error: 'each matrix must have 16 numbers' }), { error: 'matrices must be a list of 16-number matrices' })
    .max(INLINE_INSTANCE_LIMIT, { error: `matrices: at most ${INLINE_INSTANCE_LIMIT} inline; larger groups change through instance-changes` })
    .optional(),
  /** InstancedAssetGroup: how many instances the server holds, and the set's revision (informative). */
  instanceCount: z.number().int().nonnegative().optional(),
  instanceRevision: z.number().int().nonnegative().optional(),
}).superRefine((object, ctx) => {
  if (object.type === 'InstancedAssetGroup' && object.assetId === undefined) ctx.addIssue({ code: 'custom', path: ['assetId'], message: 'assetId undefined.' });
  if (object.type !== 'InstancedAssetGroup' && (object.assetId !== undefined || object.matrices !== undefined)) {
    ctx.addIssue({ code: 'custom', path: ['assetId'], message: 'assetId and matrices belong to an InstancedAssetGroup only' });
  }
});
export type SceneObject = z.infer<typeof SceneObject>;

/** A change: put one object whole, or remove one. `uuid` names the change (idempotency). */
export const SceneObjectChange = z.discriminatedUnion(
  'type',
  [
    z.object({
      key: z.string().max(300),
      uuid: objectId('uuid'),
      createdAt: z.number().int().nonnegative(),
      type: z.literal('putObject'),
      objectId: objectId('objectId'),
      object: SceneObject,
    }),
    z.object({
      key: z.string().max(300),
      uuid: objectId('uuid'),
      createdAt: z.number().int().nonnegative(),
      type: z.literal('removeObject'),
      objectId: objectId('objectId'),
    }),
  ],
  { error: "type must be 'putObject' or 'removeObject'" },
);
export type SceneObjectChange = z.infer<typeof SceneObjectChange>;

/** POST /v1/scenes/{id}/object-changes */
export const ApplyObjectChangesRequest = changesBody(
  changeList(SceneObjectChange, MAX_OBJECT_CHANGES_PER_BATCH).superRefine((changes, ctx) => {
    for (const [i, change] of changes.entries()) {
      if (change.type === 'putObject' && change.object.uuid !== change.objectId) {
        ctx.addIssue({ code: 'custom', path: [i, 'object', 'uuid'], message: `changes[${i}]: object.uuid must equal objectId` });
      }
    }
  }),
);
export type ApplyObjectChangesRequest = z.infer<typeof ApplyObjectChangesRequest>;

export interface ApplyObjectChangesResponse {
  sceneId: string;
  /** Changes applied by this request. */
  applied: string[];
  /** Changes the scene had already applied (a repeated request). */
  skipped: string[];
}

/**
 * Applies changes to a list of objects (the server's transaction and the tests use it): a change
 * whose uuid is in `seen` is skipped; a put replaces the object with its uuid (or adds it at the
 * end); a remove deletes it (removing an absent object changes nothing). Returns new lists; the
 * inputs are not changed.
 */
export function applyObjectChanges(
  objects: readonly SceneObject[],
  seen: readonly string[],
  changes: readonly SceneObjectChange[],
): { objects: SceneObject[]; seen: string[]; applied: string[]; skipped: string[] } {
  const list = [...objects];
  const seenSet = new Set(seen);
  const applied: string[] = [];
  const skipped: string[] = [];
  for (const change of changes) {
    if (seenSet.has(change.uuid)) {
      skipped.push(change.uuid);
      continue;
    }
    const index = list.findIndex((o) => o.uuid === change.objectId);
    if (change.type === 'putObject') {
      if (index >= 0) list[index] = change.object;
      else {
        if (list.length >= MAX_SCENE_OBJECTS) throw new Error(`A scene holds at most ${MAX_SCENE_OBJECTS} lights, cameras and groups.`);
        list.push(change.object);
      }
    } else if (index >= 0) {
      list.splice(index, 1);
    }
    seenSet.add(change.uuid);
    applied.push(change.uuid);
  }
  const nextSeen = [...seen, ...applied].slice(-OBJECT_CHANGE_MEMORY);
  return { objects: list, seen: nextSeen, applied, skipped };
}

/** Lights shine along their local -Z; this turns -Z to point down (-Y). */
const DOWN: [number, number, number, number] = [-Math.SQRT1_2, 0, 0, Math.SQRT1_2];

/** A new scene object of a type with the specification's defaults (section 9) and ours (marked). */
export function defaultSceneObject(type: SceneObjectType, uuid: string, name?: string): SceneObject {
  const base: SceneObject = { uuid, type, name: name ?? LABELS[type], parent: null, position: [0, 0, 0], quaternion: [0, 0, 0, 1], scale: [1, 1, 1], visible: true };
  switch (type) {
    case 'Group':
      return base;
    case 'PointLight':
      return { ...base, position: [0, 3, 0], color: 0xffffff, intensity: 10, distance: 0, decay: 2, castShadow: false }; // ours
    case 'AmbientLight':
      return { ...base, color: 0xffffff, intensity: AMBIENT_INTENSITY };
    case 'DirectionalLight':
      return { ...base, position: [0, 10, 0], quaternion: DOWN, color: 0xffffff, intensity: DIRECTIONAL_INTENSITY, castShadow: true };
    case 'RectAreaLight':
      return { ...base, position: [0, 3, 0], quaternion: DOWN, color: 0xffffff, intensity: 5, width: 2, height: 1 }; // ours; faces down
    case 'SpotLight':
      return { ...base, position: [0, 5, 0], quaternion: DOWN, color: 0xffffff, ...SPOT_LIGHT_DEFAULTS, distance: 0, castShadow: true };
    case 'HemisphereLight':
      return { ...base, position: [0, 10, 0], color: 0xffffff, groundColor: 0x444444, intensity: 1 }; // ours
    case 'PerspectiveCamera':
      return { ...base, position: [0, 2, 10], ...PERSPECTIVE_CAMERA_DEFAULTS };
    case 'InstancedAssetGroup':
      return { ...base, assetId: 'unset', castShadow: true, instanceCount: 0 }; // the caller names the asset
  }
}

export const LABELS: Record<SceneObjectType, string> = {
  Group: 'Group',
  PointLight: 'Point light',
  AmbientLight: 'Ambient light',
  DirectionalLight: 'Directional light',
  RectAreaLight: 'Rect area light',
  SpotLight: 'Spot light',
  HemisphereLight: 'Hemisphere light',
  PerspectiveCamera: 'Camera',
  InstancedAssetGroup: 'Instanced asset group',
};

/** Shadow maps a light object needs when it casts (a point light 6, the others that can cast 1, none 0). */
export function shadowMapsOf(object: Pick<SceneObject, 'type' | 'castShadow' | 'visible'>): number {
  if (!object.castShadow || !object.visible) return 0;
  if (object.type === 'PointLight') return POINT_LIGHT_SHADOW_COST;
  if (object.type === 'SpotLight' || object.type === 'DirectionalLight') return 1;
  return 0;
}

/**
 * The shadow-map check (section 5): the maps the lights would need after a change, and the warning
 * naming the light when that passes 12 (the viewer's shadow budget then leaves the least important
 * ones without a shadow). `others` is what every other casting light needs now (the sun included).
 */
export function shadowMapWarning(others: number, changed: Pick<SceneObject, 'type' | 'castShadow' | 'visible' | 'name'>): string | null {
  const total = others + shadowMapsOf(changed);
  if (total <= MAX_SHADOW_MAPS || shadowMapsOf(changed) === 0) return null;
  return `'${changed.name}' would make ${total} shadow maps, more than the ${MAX_SHADOW_MAPS} allowed (a point light counts ${POINT_LIGHT_SHADOW_COST}): the least important lights will be drawn without shadows.`;
}
