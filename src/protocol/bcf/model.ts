/**
 * BCF 2.1 (BIM Collaboration Format, buildingSMART): the project we write and read (topics, their
 * comments and viewpoints), its limits and errors, and its units. Pure: runs in the browser and in
 * Node, and imports none of our wire schemas. The files: ./archive.ts (the zip, `exportBcf` and
 * `importBcf`), ./markup.ts (a topic's markup.bcf), ./visinfo.ts (a viewpoint's .bcfv); our
 * comment threads <-> topics: ./comments.ts.
 *
 * Coordinates: a `BcfProject` is in the scene's coordinates, Y up, metres (glTF's). BCF is in
 * IFC's, Z up, metres. The conversion happens here and only here, on the way out and in:
 *   BCF (x, y, z) = scene (x, -z, y)        scene (x, y, z) = BCF (x, z, -y)
 * (a quarter turn about X; lengths are unchanged, as both are in metres).
 *
 * Field of view: BCF 2.1's FieldOfView is the HORIZONTAL angle in degrees and its schema allows
 * only 45..60 (visinfo.xsd of the 2.1 release: simpleType FieldOfView, minInclusive 45, maxInclusive
 * 60). `fieldOfView` here is that horizontal angle; `exportBcf` clamps it into 45..60 so every file
 * passes the schema, which loses a view outside the range: no other field of a viewpoint file may
 * carry it (README, BCF). The documentation tells readers to accept any value, and `importBcf` does:
 * 0 < fov < 180. `horizontalFov` / `verticalFov` convert with an aspect ratio.
 *
 * Clipping planes: `location` is a point on the plane and `direction` its normal pointing to the
 * side that is cut away (BCF's convention), both in scene coordinates.
 *
 * Lines: BCF's 3D markup lines; a line whose start equals its end is a point.
 */

export const BCF_VERSION = '2.1';

export type Vec3 = [number, number, number];

export interface BcfPerspectiveCamera {
  kind: 'perspective';
  position: Vec3;
  direction: Vec3;
  up: Vec3;
  /** Horizontal field of view in degrees (BCF 2.1). */
  fieldOfView: number;
}

export interface BcfOrthogonalCamera {
  kind: 'orthogonal';
  position: Vec3;
  direction: Vec3;
  up: Vec3;
  /** The view's visible height in metres. */
  viewToWorldScale: number;
}

export type BcfCamera = BcfPerspectiveCamera | BcfOrthogonalCamera;

export interface BcfClippingPlane {
  location: Vec3;
  /** The plane's normal, pointing to the side cut away. */
  direction: Vec3;
}

export interface BcfLine {
  start: Vec3;
  end: Vec3;
}

export interface BcfViewpoint {
  guid: string;
  /** A viewpoint may have no camera (BCF allows it: then only its planes and lines say anything). */
  camera?: BcfCamera;
  clippingPlanes: BcfClippingPlane[];
  lines: BcfLine[];
  snapshotPng?: Uint8Array;
}

export interface BcfComment {
  guid: string;
  /** ISO 8601 date-time. */
  date: string;
  author: string;
  text: string;
  viewpointGuid?: string;
  modifiedDate?: string;
  modifiedAuthor?: string;
}

export interface BcfTopic {
  guid: string;
  title: string;
  /** TopicStatus as written (e.g. 'Open', 'Closed'); may be empty. */
  status: string;
  topicType?: string;
  author: string;
  /** ISO 8601 date-time. */
  creationDate: string;
  modifiedDate?: string;
  modifiedAuthor?: string;
  description?: string;
  comments: BcfComment[];
  viewpoints: BcfViewpoint[];
}

export interface BcfProject {
  projectId?: string;
  projectName?: string;
  topics: BcfTopic[];
  /**
   * Import only: what was skipped and why (a topic whose markup is missing or broken, a viewpoint
   * file that cannot be read, ...). The rest of the file is imported.
   */
  problems?: string[];
}

/** Limits checked before anything is inflated (zip bombs) and while reading. */
export interface BcfImportLimits {
  /** Most entries in the zip. */
  maxEntries: number;
  /** Most bytes all entries declare once inflated, together. */
  maxTotalBytes: number;
  /** Most bytes one XML file (markup, viewpoint, version, project) declares once inflated. */
  maxXmlBytes: number;
  /** Most topics. */
  maxTopics: number;
}

export const BCF_IMPORT_LIMITS: Readonly<BcfImportLimits> = {
  maxEntries: 50_000,
  maxTotalBytes: 512 * 1024 * 1024,
  maxXmlBytes: 16 * 1024 * 1024,
  maxTopics: 10_000,
};

/** The error importBcf throws when the file as a whole cannot be imported. */
export class BcfImportError extends Error {
  override name = 'BcfImportError';
}

/** The error exportBcf throws for a project it cannot write faithfully. */
export class BcfExportError extends Error {
  override name = 'BcfExportError';
}

export const BCF_FOV_MIN = 45;
export const BCF_FOV_MAX = 60;

const GUID = /^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$/;

export function isBcfGuid(value: string): boolean {
  return GUID.test(value);
}

// ---- coordinates -------------------------------------------------------------------------------

/** Scene (Y up) -> BCF (Z up). */
export function toBcfAxes(v: readonly number[]): Vec3 {
  return [v[0]!, -v[2]! + 0, v[1]!];
}

/** BCF (Z up) -> scene (Y up). */
export function fromBcfAxes(v: readonly number[]): Vec3 {
  return [v[0]!, v[2]!, -v[1]! + 0];
}

/** BCF's horizontal field of view from a vertical one (degrees) and the view's width / height. */
export function horizontalFov(verticalDeg: number, aspect: number): number {
  return (2 * Math.atan(Math.tan((verticalDeg * Math.PI) / 360) * aspect) * 180) / Math.PI;
}

/** The vertical field of view from BCF's horizontal one (degrees) and the view's width / height. */
export function verticalFov(horizontalDeg: number, aspect: number): number {
  return (2 * Math.atan(Math.tan((horizontalDeg * Math.PI) / 360) / aspect) * 180) / Math.PI;
}
