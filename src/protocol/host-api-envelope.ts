import { z } from 'zod';

/**
 * The host-page API's limits and its envelope: the window messages a page and the viewer exchange
 * (api.init, api.request, api.response, api.event, lifecycle). The functions' schemas are in
 * ./host-api.ts.
 */

/** The API's version, reported by api.init.result. */
export const HOST_API_VERSION = '1.0.0';
/** Longest requestId, func name and instanceId accepted. */
export const MAX_ID_LENGTH = 100;
/** Longest name, title or text argument. */
export const MAX_TEXT_LENGTH = 10_000;
/** Most registered hotspots (3D points whose screen positions are sent as the camera moves). */
export const MAX_HOTSPOTS = 1000;
/** Largest renderOffscreenFrame / screenshot side, in pixels. */
export const MAX_FRAME_SIDE = 8192;
/** Longest bearer token a host page may hand over (as the meeting's AUTH_REQUEST). */
export const MAX_TOKEN_LENGTH = 16_000;
/** Most points of one measurement (an area's outline); a comment's view and a meeting keep as many. */
export const MAX_MEASUREMENT_POINTS = 256;
/**
 * Most measurements and section planes there may be when the API makes one: each is entities and
 * GPU objects, and each plane clips every shader, so a host page cannot grow them without bound.
 */
export const MAX_MEASUREMENTS = 1000;
export const MAX_SECTION_PLANES = 64;
/** Most textures addTexture keeps at once (removeTexture frees one). */
export const MAX_ADDED_TEXTURES = 100;
/**
 * How far an area's point may be off the plane of its first three points: this fraction of the
 * outline's size (its bounding box's diagonal). The measurement is drawn and computed on that plane.
 */
export const AREA_PLANE_TOLERANCE = 1e-3;

export const RequestId = z.union([z.string().min(1).max(MAX_ID_LENGTH), z.number().int().refine(Number.isSafeInteger)]);
export type RequestId = z.infer<typeof RequestId>;

export const InstanceId = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, { error: 'instanceId must be 1-100 characters of A-Z a-z 0-9 _ -' });

export const ApiInitMessage = z.object({ type: z.literal('api.init'), instanceId: InstanceId.optional() });
export const ApiRequestMessage = z.object({
  type: z.literal('api.request'),
  requestId: RequestId,
  func: z.string().max(MAX_ID_LENGTH),
  arguments: z.unknown().optional(),
  instanceId: InstanceId.optional(),
});
export type ApiRequestMessage = z.infer<typeof ApiRequestMessage>;

export interface ApiInitResult {
  type: 'api.init.result';
  instanceId: string;
  version: string;
  /** The names of every function; empty with `error` when this page may not use the API. */
  functions: string[];
  /** The functions that only read (callable under the open default). */
  readOnly: string[];
  /** Whether this page may call functions that change the scene. */
  mayChange: boolean;
  /** Whether the scene is shown (viewerready was sent): functions answer from now on. */
  ready: boolean;
  error?: string;
}
export type ApiResponse =
  | { type: 'api.response'; instanceId: string; requestId: RequestId | null; response: unknown }
  | { type: 'api.response'; instanceId: string; requestId: RequestId | null; error: string };
export interface ApiEventMessage {
  type: 'api.event';
  instanceId: string;
  event: string;
  data: unknown;
}
export interface LifecycleMessage {
  type: 'viewerinit' | 'viewerready';
  instanceId: string;
  sceneId: string;
}
export type ViewerToHostMessage = ApiInitResult | ApiResponse | ApiEventMessage | LifecycleMessage;
