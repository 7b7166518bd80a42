import { z } from 'zod';
import { MEASUREMENT_KINDS, NAVIGATION_MODE_NAMES, PROJECTION_NAMES } from './host-api-args.ts';

/** The schemas of what the host API's functions answer (./host-api.ts), one per kind of value. */

export const Vec3Out = z.tuple([z.number(), z.number(), z.number()]);
export const Ok = z.object({ ok: z.literal(true) });

export const ModelInfo = z.object({
  modelId: z.string(),
  name: z.string(),
  visible: z.boolean(),
  nodes: z.number(),
  meshes: z.number(),
  materials: z.number(),
  textures: z.number(),
  animations: z.number(),
});
export const CameraState = z.object({
  position: Vec3Out,
  target: Vec3Out,
  /** Vertical field of view in degrees (perspective). */
  fov: z.number(),
  near: z.number(),
  far: z.number(),
  projection: z.enum(PROJECTION_NAMES),
  mode: z.enum(NAVIGATION_MODE_NAMES),
  controls: z.enum(['simple', 'editor']),
});
export const NodeInfo = z.object({
  modelId: z.string(),
  nodeId: z.string(),
  name: z.string(),
  /** three.js type: Mesh, Group, Object3D, ... */
  type: z.string(),
  visible: z.boolean(),
  /** Local translation, rotation (XYZ Euler angles in degrees) and scale, as the ECS holds them. */
  translation: Vec3Out,
  rotation: Vec3Out,
  scale: Vec3Out,
  /** The nodeId of the parent node, null at the model's root. */
  parentId: z.string().nullable(),
  children: z.array(z.string()),
});
export interface NodeTreeEntry {
  nodeId: string;
  name: string;
  type: string;
  children: NodeTreeEntry[];
}
export const NodeTreeEntry: z.ZodType<NodeTreeEntry> = z.lazy(() =>
  z.object({ nodeId: z.string(), name: z.string(), type: z.string(), children: z.array(NodeTreeEntry) }).meta({ id: 'NodeTreeEntry' }),
);
export const MaterialSummary = z.object({ modelId: z.string(), materialId: z.string(), name: z.string(), type: z.string() });
export const MaterialInfo = MaterialSummary.extend({
  color: z.string().nullable(),
  opacity: z.number(),
  transparent: z.boolean(),
  metalness: z.number().nullable(),
  roughness: z.number().nullable(),
  emissive: z.string().nullable(),
  emissiveIntensity: z.number().nullable(),
  /** Texture maps present: property name -> textureId (null when the texture has no id). */
  maps: z.record(z.string(), z.string().nullable()),
});
export const Hit = z.object({
  position: Vec3Out,
  normal: Vec3Out,
  distance: z.number(),
  modelId: z.string().nullable(),
  nodeId: z.string().nullable(),
  nodeName: z.string(),
  materialId: z.string().nullable(),
  material: z.string(),
  instanceId: z.number().nullable(),
});
export const ScreenPoint = z.object({
  /** CSS pixels from the viewer's top left. */
  x: z.number(),
  y: z.number(),
  /** In front of the camera and inside the viewer. */
  visible: z.boolean(),
});
export const Image = z.object({ width: z.number(), height: z.number(), mimeType: z.string(), dataUrl: z.string() });
export const AnnotationInfo = z.object({
  id: z.string(),
  title: z.string(),
  text: z.string(),
  position: Vec3Out,
  /** Camera eye and target for gotoAnnotation. */
  eye: Vec3Out,
  target: Vec3Out,
});
export type AnnotationInfo = z.infer<typeof AnnotationInfo>;
export const AuthInfo = z.object({
  /** Whether the viewer now saves as the person of the host's token. */
  signedIn: z.boolean(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  /** When the token expires (milliseconds since 1970, its `exp`), null without one. */
  expiresAt: z.number().nullable(),
});
export type AuthInfo = z.infer<typeof AuthInfo>;
export const AnimationInfo = z.object({
  modelId: z.string(),
  id: z.string(),
  name: z.string(),
  duration: z.number(),
  status: z.enum(['playing', 'paused', 'finished', 'stopped']),
  time: z.number(),
  loop: z.boolean(),
});
export const MeasurementInfo = z.object({
  id: z.number(),
  kind: z.enum(MEASUREMENT_KINDS),
  value: z.number(),
  label: z.string(),
  points: z.array(Vec3Out),
});
/** A section plane: the part of the scene where normal . p + constant >= 0 stays (the normal points to it). */
export const SectionInfo = z.object({ id: z.number(), normal: Vec3Out, constant: z.number() });
export const TextureInfo = z.object({
  textureId: z.string(),
  /** The model whose texture it is; null for a texture of addTexture (usable in every model's materials). */
  modelId: z.string().nullable(),
  name: z.string(),
  /** 'model': the model's own; 'uploaded': an uploaded texture a saved edit uses; 'added': addTexture's. */
  source: z.enum(['model', 'uploaded', 'added']),
  /** The image's URL (addTexture's and updateTexture's), null for the model's own images. */
  url: z.string().nullable(),
  /** The image's size in pixels (null while it has none). */
  width: z.number().nullable(),
  height: z.number().nullable(),
  /** The material maps that sample it. */
  usedBy: z.array(z.object({ modelId: z.string(), materialId: z.string(), map: z.string() })),
});
export type TextureInfo = z.infer<typeof TextureInfo>;
export const QualityInfo = z.object({ tier: z.enum(['low', 'medium', 'high']), forced: z.boolean(), postprocessing: z.boolean() });
