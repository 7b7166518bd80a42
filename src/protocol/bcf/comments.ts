import { bcfAuthorToName, nameToBcfAuthor } from './authors.ts';
import {
  horizontalFov,
  isBcfGuid,
  verticalFov,
  type BcfClippingPlane,
  type BcfComment,
  type BcfLine,
  type BcfProject,
  type BcfTopic,
  type BcfViewpoint,
  type Vec3,
} from './model.ts';
import { pngSize } from './png.ts';
import {
  MAX_COMMENT_TEXT,
  MAX_COMMENT_TITLE,
  MAX_REPLIES,
  MAX_VIEW_MEASUREMENTS,
  MAX_VIEW_SECTIONS,
  type CommentAuthor,
  type CommentMeasurement,
  type CommentSectionPlane,
  type CommentStatus,
  type CommentThread,
  type CommentView,
  type CreateCommentRequest,
} from '../comments.ts';

/**
 * Our comment threads <-> BCF 2.1 topics (issue 16, item 4).
 *
 * Out: a thread is a topic (title, status 'Open' / 'Closed', author, dates; its text is the
 * topic's Description and each reply a BCF comment), with one viewpoint: the thread's view (the
 * camera; the section planes as clipping planes; the measurements as lines) and its snapshot. The
 * pinned point travels as a line whose start equals its end (BCF reads such a line as a point) and
 * is the first line. GUIDs are made from our ids, the same each time, so a second export of the
 * same scene updates the same topics in another program.
 *
 * In: a topic becomes a thread request for the comments REST API. BCF says nothing of an orbit
 * target, so the view's target is put at the pin's depth along the camera direction, or where
 * `locate` (the viewer's pick) finds a surface, or 10 m ahead. The service records the importing
 * user as the author; when a BCF author is someone else, the text ends with whom and when it was
 * written, so no one's words are passed off as another's.
 */

// ---- ids ---------------------------------------------------------------------------------------

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * A BCF GUID for one of our ids: the id itself when it is a GUID, otherwise a 128-bit hash of it
 * written as a version-8 (custom) UUID. Deterministic; not a security measure.
 */
export function bcfGuidFor(id: string): string {
  if (isBcfGuid(id)) return id.toLowerCase();
  const words = [0x811c9dc5, 0x01000193, 0x9e3779b9, 0x7f4a7c15];
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    for (let w = 0; w < 4; w++) words[w] = Math.imul(words[w]! ^ (c + w * 0x3b), 0x01000193 + w * 2) >>> 0;
  }
  const hex = words.map((w, i) => fmix32(w ^ Math.imul(id.length, i + 1)).toString(16).padStart(8, '0')).join('');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

// ---- vectors -----------------------------------------------------------------------------------

const sub = (a: readonly number[], b: readonly number[]): Vec3 => [a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!];
const dot = (a: readonly number[], b: readonly number[]): number => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
const scale = (a: readonly number[], s: number): Vec3 => [a[0]! * s, a[1]! * s, a[2]! * s];
const add = (a: readonly number[], b: readonly number[]): Vec3 => [a[0]! + b[0]!, a[1]! + b[1]!, a[2]! + b[2]!];
const len = (a: readonly number[]): number => Math.hypot(a[0]!, a[1]!, a[2]!);
function normalize(a: readonly number[]): Vec3 | undefined {
  const l = len(a);
  return l > 1e-12 ? scale(a, 1 / l) : undefined;
}
const noNegativeZero = (a: Vec3): Vec3 => [a[0] + 0, a[1] + 0, a[2] + 0];
const same = (a: readonly number[], b: readonly number[]): boolean => len(sub(a, b)) <= 1e-9 * Math.max(1, len(a));

/** The up vector made perpendicular to the direction (BCF's CameraUpVector); world Y/Z as fallbacks. */
function orthoUp(up: readonly number[], direction: Vec3): Vec3 {
  for (const candidate of [up, [0, 1, 0], [0, 0, -1]]) {
    const u = normalize(sub(candidate, scale(direction, dot(candidate, direction))));
    if (u) return u;
  }
  return [0, 1, 0];
}

// ---- out ---------------------------------------------------------------------------------------

export interface CommentsToBcfOptions {
  projectName?: string;
  projectId?: string;
  /** The viewer's width / height, for BCF's horizontal field of view. */
  aspect: number;
  /** Snapshot PNGs by thread id. */
  snapshots?: ReadonlyMap<string, Uint8Array>;
  /** The e-mail-like author strings' domain (nameToBcfAuthor). */
  authorDomain?: string;
}

export const BCF_STATUS_OPEN = 'Open';
export const BCF_STATUS_CLOSED = 'Closed';

/** The section plane (kept side n . p + c >= 0) as BCF's clipping plane (direction to the cut side). */
export function sectionToClippingPlane(section: CommentSectionPlane): BcfClippingPlane | undefined {
  const l = len(section.normal);
  if (!(l > 1e-12)) return undefined;
  const n = scale(section.normal, 1 / l);
  return { location: noNegativeZero(scale(n, -section.constant / l)), direction: noNegativeZero(scale(n, -1)) };
}

export function clippingPlaneToSection(plane: BcfClippingPlane): CommentSectionPlane | undefined {
  const d = normalize(plane.direction);
  if (!d) return undefined;
  const normal = noNegativeZero(scale(d, -1));
  return { normal, constant: -dot(normal, plane.location) + 0 };
}

function measurementLines(m: CommentMeasurement): BcfLine[] {
  const p = m.points;
  const lines: BcfLine[] = [];
  for (let i = 0; i + 1 < p.length; i++) lines.push({ start: [...p[i]!], end: [...p[i + 1]!] });
  if (m.kind === 'area' && p.length >= 3) lines.push({ start: [...p[p.length - 1]!], end: [...p[0]!] });
  return lines;
}

function viewToViewpoint(thread: CommentThread, options: CommentsToBcfOptions): BcfViewpoint {
  const v = thread.view;
  const direction = normalize(sub(v.target, v.position)) ?? normalize(thread.anchor.direction) ?? [0, 0, -1];
  const up = orthoUp(v.up, direction);
  const base = { position: [...v.position] as Vec3, direction, up };
  const vp: BcfViewpoint = {
    guid: bcfGuidFor(`${thread._id}/view`),
    camera:
      v.projection === 'Orthographic'
        ? { kind: 'orthogonal', ...base, viewToWorldScale: v.orthoHeight }
        : { kind: 'perspective', ...base, fieldOfView: horizontalFov(v.fov, options.aspect) },
    clippingPlanes: v.sections.map(sectionToClippingPlane).filter((p): p is BcfClippingPlane => p !== undefined),
    lines: [{ start: [...thread.anchor.position], end: [...thread.anchor.position] }, ...v.measurements.flatMap(measurementLines)],
  };
  const png = options.snapshots?.get(thread._id);
  if (png) vp.snapshotPng = png;
  return vp;
}

function firstLine(text: string, max: number): string {
  const line = text.trim().split(/\r?\n/)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The scene's threads as a BCF project (one topic per thread). */
export function commentsToBcf(threads: readonly CommentThread[], options: CommentsToBcfOptions): BcfProject {
  const author = (a: CommentAuthor) => nameToBcfAuthor(a, options.authorDomain);
  const topics: BcfTopic[] = threads.map((thread) => {
    const viewpoint = viewToViewpoint(thread, options);
    const comments: BcfComment[] = thread.replies.map((reply) => ({
      guid: bcfGuidFor(reply._id),
      date: reply.createdAt,
      author: author(reply.author),
      text: reply.text,
      viewpointGuid: viewpoint.guid,
      ...(reply.updatedAt !== reply.createdAt ? { modifiedDate: reply.updatedAt, modifiedAuthor: author(reply.author) } : {}),
    }));
    const topic: BcfTopic = {
      guid: bcfGuidFor(thread._id),
      title: thread.title.trim() || firstLine(thread.text, MAX_COMMENT_TITLE),
      status: thread.status === 'resolved' ? BCF_STATUS_CLOSED : BCF_STATUS_OPEN,
      author: author(thread.author),
      creationDate: thread.createdAt,
      description: thread.text,
      comments,
      viewpoints: [viewpoint],
    };
    if (thread.updatedAt !== thread.createdAt) {
      topic.modifiedDate = thread.updatedAt;
      topic.modifiedAuthor = author(thread.status === 'resolved' && thread.resolvedBy ? thread.resolvedBy : thread.author);
    }
    return topic;
  });
  return {
    ...(options.projectName !== undefined ? { projectName: options.projectName } : {}),
    ...(options.projectId !== undefined ? { projectId: options.projectId } : {}),
    topics,
  };
}

// ---- in ----------------------------------------------------------------------------------------

export interface BcfToCommentsOptions {
  /** The importing viewer's width / height: BCF's horizontal field of view needs one when a viewpoint has no snapshot. */
  aspect: number;
  /** The vertical field of view (degrees) for a view from an orthogonal camera. */
  defaultFov: number;
  /** The person importing: BCF authors who are someone else are named in the text. */
  importer?: Pick<CommentAuthor, 'firstName' | 'lastName'>;
  /** Where the view from `eye` along `direction` meets the scene (the viewer's pick), if anywhere. */
  locate?: (eye: Vec3, direction: Vec3) => Vec3 | undefined;
}

/** One topic as the REST calls that recreate it: create, then resolve if closed, then the replies. */
export interface ImportedThread {
  topicGuid: string;
  request: CreateCommentRequest;
  status: CommentStatus;
  replies: string[];
  snapshotPng?: Uint8Array;
}

/** Distance ahead of the camera for a target when nothing better is known (metres). */
export const BCF_DEFAULT_TARGET_DISTANCE = 10;

const RESOLVED_STATUSES = /^(closed|resolved|done|fixed|completed?|inactive)$/i;

export function bcfStatusToComment(status: string): CommentStatus {
  return RESOLVED_STATUSES.test(status.trim()) ? 'resolved' : 'open';
}

function linesToMeasurements(lines: readonly BcfLine[]): CommentMeasurement[] {
  const out: CommentMeasurement[] = [];
  let i = 0;
  while (i < lines.length) {
    const chain = [lines[i]!];
    while (i + chain.length < lines.length && same(chain[chain.length - 1]!.end, lines[i + chain.length]!.start)) chain.push(lines[i + chain.length]!);
    i += chain.length;
    const closed = chain.length >= 3 && same(chain[chain.length - 1]!.end, chain[0]!.start);
    if (closed) out.push({ kind: 'area', points: chain.map((l) => [...l.start] as Vec3) });
    else if (chain.length === 2) out.push({ kind: 'angle', points: [[...chain[0]!.start], [...chain[0]!.end], [...chain[1]!.end]] });
    else for (const l of chain) out.push({ kind: 'length', points: [[...l.start], [...l.end]] });
  }
  return out;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function attributed(text: string, author: string, date: string, importer: BcfToCommentsOptions['importer']): string {
  const name = bcfAuthorToName(author);
  const isImporter = importer && name.firstName === importer.firstName && name.lastName === importer.lastName;
  const who = `${name.firstName} ${name.lastName}`.trim() || 'unknown author';
  const note = isImporter ? '' : `\n\n(BCF: ${who}, ${date.slice(0, 16).replace('T', ' ')} UTC)`;
  return clip(text.trim() || '(no text)', MAX_COMMENT_TEXT - note.length) + note;
}

/**
 * The topics of a BCF project as comment threads to create. A topic without any viewpoint that has
 * a camera has no place in the scene, so it is not imported and is named in `problems`.
 */
export function bcfToComments(project: BcfProject, options: BcfToCommentsOptions): { threads: ImportedThread[]; problems: string[] } {
  const threads: ImportedThread[] = [];
  const problems: string[] = [];
  for (const topic of project.topics) {
    const viewpoint = topic.viewpoints.find((v) => v.camera);
    const camera = viewpoint?.camera;
    if (!viewpoint || !camera) {
      problems.push(`Topic "${topic.title}" (${topic.guid}) has no viewpoint with a camera, so it has no place in the scene; it was not imported.`);
      continue;
    }
    const direction = normalize(camera.direction)!;
    const eye = camera.position;
    const pin = viewpoint.lines.find((l) => same(l.start, l.end))?.start;
    const anchorPoint = pin ?? options.locate?.(eye, direction) ?? add(eye, scale(direction, BCF_DEFAULT_TARGET_DISTANCE));
    const depth = dot(sub(anchorPoint, eye), direction);
    const distance = depth > 1e-6 ? depth : BCF_DEFAULT_TARGET_DISTANCE;
    const target = add(eye, scale(direction, distance));
    const size = viewpoint.snapshotPng ? pngSize(viewpoint.snapshotPng) : undefined;
    const aspect = size ? size.width / size.height : options.aspect;
    const fov =
      camera.kind === 'perspective' ? Math.min(179, Math.max(1, verticalFov(camera.fieldOfView, aspect))) : options.defaultFov;
    const view: CommentView = {
      projection: camera.kind === 'perspective' ? 'Perspective' : 'Orthographic',
      position: [...eye],
      target,
      up: orthoUp(camera.up, direction),
      fov,
      orthoHeight: camera.kind === 'orthogonal' ? camera.viewToWorldScale : 2 * distance * Math.tan((fov * Math.PI) / 360),
      sections: viewpoint.clippingPlanes
        .map(clippingPlaneToSection)
        .filter((s): s is CommentSectionPlane => s !== undefined)
        .slice(0, MAX_VIEW_SECTIONS),
      measurements: linesToMeasurements(viewpoint.lines.filter((l) => !same(l.start, l.end))).slice(0, MAX_VIEW_MEASUREMENTS),
    };
    const comments = [...topic.comments].sort((a, b) => a.date.localeCompare(b.date));
    let body = topic.description;
    let bodyAuthor = topic.author;
    let bodyDate = topic.creationDate;
    if (body === undefined || body.trim() === '') {
      const first = comments.shift();
      body = first?.text ?? topic.title;
      if (first) {
        bodyAuthor = first.author;
        bodyDate = first.date;
      }
    }
    const replies = comments.map((c) => attributed(c.text, c.author, c.date, options.importer));
    if (replies.length > MAX_REPLIES) {
      problems.push(`Topic "${topic.title}" has ${replies.length} comments; the first ${MAX_REPLIES} were imported.`);
      replies.length = MAX_REPLIES;
    }
    const imported: ImportedThread = {
      topicGuid: topic.guid,
      request: {
        anchor: { position: [...anchorPoint], target, direction },
        view,
        text: attributed(body, bodyAuthor, bodyDate, options.importer),
        title: clip(topic.title.trim(), MAX_COMMENT_TITLE),
      },
      status: bcfStatusToComment(topic.status),
      replies,
    };
    if (viewpoint.snapshotPng) imported.snapshotPng = viewpoint.snapshotPng;
    threads.push(imported);
  }
  return { threads, problems };
}
