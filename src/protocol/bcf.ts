import { DOMParser, type Element as XmlDomElement } from '@xmldom/xmldom';
import { unzipSync, zipSync, type Zippable } from 'fflate';
import { el, renderXml, textEl, type XmlElement } from './xml-writer.ts';

/**
 * BCF 2.1 (BIM Collaboration Format, buildingSMART) files: `exportBcf` writes a project of topics
 * as a `.bcfzip`, `importBcf` reads one back. Pure: runs in the browser and in Node.
 *
 * The archive: `bcf.version`, `project.bcfp` (when the project has a name), and one folder per
 * topic named by its GUID with `markup.bcf` (the topic, its comments and its viewpoints), one
 * `.bcfv` file per viewpoint and its snapshot PNG. The first viewpoint of a topic is written as
 * `viewpoint.bcfv` / `snapshot.png` (the format asks for one of each under those names), the
 * others as `{guid}.bcfv` / `{guid}.png`; folders have their own entries in the zip.
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

// ---- authors -----------------------------------------------------------------------------------

/** The domain of the e-mail-like author strings we write for people known only by name. */
export const BCF_AUTHOR_DOMAIN = 'users.parametricos.invalid';

/** Percent-encoding that leaves only characters an e-mail local part may hold unquoted, and no dot. */
function encodeNamePart(part: string): string {
  return encodeURIComponent(part).replace(/[.!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/**
 * A person's name as BCF's author string (BCF recommends e-mail addresses): `first.last@domain`,
 * each part percent-encoded (so a dot, space or non-ASCII letter in a name survives) and its case
 * kept: 'Ada' 'Lovelace' -> 'Ada.Lovelace@users.parametricos.invalid', 'Jean Luc' 'Picard' ->
 * 'Jean%20Luc.Picard@…'. `bcfAuthorToName` reads it back exactly. The `.invalid` domain says
 * plainly that it is no mailbox.
 */
export function nameToBcfAuthor(name: { firstName: string; lastName: string }, domain = BCF_AUTHOR_DOMAIN): string {
  return `${encodeNamePart(name.firstName)}.${encodeNamePart(name.lastName)}@${domain}`;
}

/**
 * A name from a BCF author string. Ours (above) come back exactly. Others: an e-mail's local part
 * split at its first dot ('jane.doe@x' -> 'jane' 'doe', as written); one without a dot is
 * the first name; a plain 'First Last' string splits at its first space.
 */
export function bcfAuthorToName(author: string): { firstName: string; lastName: string } {
  const value = author.trim();
  const at = value.lastIndexOf('@');
  if (at > 0) {
    const local = value.slice(0, at);
    const dot = local.indexOf('.');
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    };
    return dot < 0 ? { firstName: decode(local), lastName: '' } : { firstName: decode(local.slice(0, dot)), lastName: decode(local.slice(dot + 1)) };
  }
  const space = value.indexOf(' ');
  return space < 0 ? { firstName: value, lastName: '' } : { firstName: value.slice(0, space), lastName: value.slice(space + 1).trim() };
}

// ---- export ------------------------------------------------------------------------------------

const enc = new TextEncoder();

function num(value: number, what: string): string {
  if (!Number.isFinite(value)) throw new BcfExportError(`BCF export: ${what} is not a finite number (${value})`);
  return String(value === 0 ? 0 : value);
}

function xyz(name: string, v: readonly number[], what: string): XmlElement {
  const [x, y, z] = toBcfAxes(v);
  return el(name, {}, textEl('X', num(x, what)), textEl('Y', num(y, what)), textEl('Z', num(z, what)));
}

function requireGuid(value: string, what: string): string {
  if (!isBcfGuid(value)) throw new BcfExportError(`BCF export: ${what} "${value}" is not a GUID`);
  return value;
}

function requireDate(value: string, what: string): string {
  const t = Date.parse(value);
  if (!Number.isFinite(t)) throw new BcfExportError(`BCF export: ${what} "${value}" is not a date`);
  return new Date(t).toISOString();
}

function viewpointFiles(index: number, guid: string): { bcfv: string; png: string } {
  return index === 0 ? { bcfv: 'viewpoint.bcfv', png: 'snapshot.png' } : { bcfv: `${guid}.bcfv`, png: `${guid}.png` };
}

function visinfoXml(vp: BcfViewpoint): string {
  const cam = vp.camera;
  const what = `viewpoint ${vp.guid}`;
  const camera = cam && [
    xyz('CameraViewPoint', cam.position, `${what}: camera position`),
    xyz('CameraDirection', cam.direction, `${what}: camera direction`),
    xyz('CameraUpVector', cam.up, `${what}: camera up`),
  ];
  return renderXml(
    el(
      'VisualizationInfo',
      { Guid: vp.guid },
      // The schema's order: Components, OrthogonalCamera, PerspectiveCamera, Lines, ClippingPlanes, Bitmap.
      cam?.kind === 'orthogonal' &&
        el('OrthogonalCamera', {}, camera, textEl('ViewToWorldScale', num(cam.viewToWorldScale, `${what}: view to world scale`))),
      cam?.kind === 'perspective' &&
        el(
          'PerspectiveCamera',
          {},
          camera,
          textEl('FieldOfView', num(Math.min(BCF_FOV_MAX, Math.max(BCF_FOV_MIN, cam.fieldOfView)), `${what}: field of view`)),
        ),
      vp.lines.length > 0 &&
        el(
          'Lines',
          {},
          vp.lines.map((line) => el('Line', {}, xyz('StartPoint', line.start, `${what}: line`), xyz('EndPoint', line.end, `${what}: line`))),
        ),
      vp.clippingPlanes.length > 0 &&
        el(
          'ClippingPlanes',
          {},
          vp.clippingPlanes.map((plane) =>
            el('ClippingPlane', {}, xyz('Location', plane.location, `${what}: clipping plane`), xyz('Direction', plane.direction, `${what}: clipping plane`)),
          ),
        ),
    ),
  );
}

function markupXml(topic: BcfTopic): string {
  const viewpointGuids = new Set(topic.viewpoints.map((v) => v.guid));
  return renderXml(
    el(
      'Markup',
      {},
      el(
        'Topic',
        { Guid: topic.guid, TopicType: topic.topicType || undefined, TopicStatus: topic.status || undefined },
        textEl('Title', topic.title),
        textEl('CreationDate', requireDate(topic.creationDate, `topic ${topic.guid}: creation date`)),
        textEl('CreationAuthor', topic.author),
        topic.modifiedDate !== undefined && textEl('ModifiedDate', requireDate(topic.modifiedDate, `topic ${topic.guid}: modified date`)),
        topic.modifiedAuthor !== undefined && textEl('ModifiedAuthor', topic.modifiedAuthor),
        topic.description !== undefined && topic.description !== '' && textEl('Description', topic.description),
      ),
      topic.comments.map((c) => {
        const what = `topic ${topic.guid}: comment ${c.guid}`;
        requireGuid(c.guid, 'comment GUID');
        if (c.viewpointGuid !== undefined && !viewpointGuids.has(c.viewpointGuid))
          throw new BcfExportError(`BCF export: ${what} refers to viewpoint ${c.viewpointGuid}, which the topic does not have`);
        return el(
          'Comment',
          { Guid: c.guid },
          textEl('Date', requireDate(c.date, `${what}: date`)),
          textEl('Author', c.author),
          textEl('Comment', c.text),
          c.viewpointGuid !== undefined && el('Viewpoint', { Guid: c.viewpointGuid }),
          c.modifiedDate !== undefined && textEl('ModifiedDate', requireDate(c.modifiedDate, `${what}: modified date`)),
          c.modifiedAuthor !== undefined && textEl('ModifiedAuthor', c.modifiedAuthor),
        );
      }),
      topic.viewpoints.map((vp, i) => {
        const files = viewpointFiles(i, vp.guid);
        return el(
          'Viewpoints',
          { Guid: vp.guid },
          textEl('Viewpoint', files.bcfv),
          vp.snapshotPng && textEl('Snapshot', files.png),
          textEl('Index', String(i)),
        );
      }),
    ),
  );
}

/** The project as a BCF 2.1 zip (`.bcfzip`). Throws BcfExportError for what cannot be written. */
export function exportBcf(project: BcfProject): Uint8Array {
  const files: Zippable = {
    'bcf.version': enc.encode(
      renderXml(el('Version', { VersionId: BCF_VERSION }, textEl('DetailedVersion', BCF_VERSION))),
    ),
  };
  if (project.projectName !== undefined || project.projectId !== undefined) {
    files['project.bcfp'] = enc.encode(
      renderXml(
        el(
          'ProjectExtension',
          {},
          el('Project', { ProjectId: project.projectId ?? '' }, project.projectName !== undefined && textEl('Name', project.projectName)),
          textEl('ExtensionSchema', ''),
        ),
      ),
    );
  }
  const seen = new Set<string>();
  for (const topic of project.topics) {
    requireGuid(topic.guid, 'topic GUID');
    const key = topic.guid.toLowerCase();
    if (seen.has(key)) throw new BcfExportError(`BCF export: two topics have the GUID ${topic.guid}`);
    seen.add(key);
    const folder: Record<string, Uint8Array | [Uint8Array, { level: 0 }]> = { 'markup.bcf': enc.encode(markupXml(topic)) };
    const vpSeen = new Set<string>();
    topic.viewpoints.forEach((vp, i) => {
      requireGuid(vp.guid, `topic ${topic.guid}: viewpoint GUID`);
      if (vpSeen.has(vp.guid.toLowerCase())) throw new BcfExportError(`BCF export: topic ${topic.guid} has two viewpoints ${vp.guid}`);
      vpSeen.add(vp.guid.toLowerCase());
      const names = viewpointFiles(i, vp.guid);
      folder[names.bcfv] = enc.encode(visinfoXml(vp));
      // PNGs are compressed already: stored, not deflated again.
      if (vp.snapshotPng) folder[names.png] = [vp.snapshotPng, { level: 0 }];
    });
    files[topic.guid] = folder;
  }
  return zipSync(files, { level: 6 });
}

// ---- import ------------------------------------------------------------------------------------

function fail(message: string): never {
  throw new BcfImportError(message);
}

interface Entry {
  name: string;
  size: number;
}

/** The zip's directory, read without inflating anything. */
function listEntries(bytes: Uint8Array, limits: BcfImportLimits): Entry[] {
  const entries: Entry[] = [];
  let total = 0;
  try {
    unzipSync(bytes, {
      filter(file) {
        entries.push({ name: file.name, size: file.originalSize });
        total += file.originalSize;
        if (entries.length > limits.maxEntries) fail(`This BCF file has more than ${limits.maxEntries} entries; it is not imported.`);
        return false;
      },
    });
  } catch (error) {
    if (error instanceof BcfImportError) throw error;
    fail('This file is not a BCF file: it is not a zip archive (or the archive is damaged).');
  }
  if (total > limits.maxTotalBytes)
    fail(`This BCF file would unpack to ${mib(total)}, more than the ${mib(limits.maxTotalBytes)} allowed; it is not imported.`);
  return entries;
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function decodeXmlBytes(bytes: Uint8Array, file: string): string {
  try {
    if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le', { fatal: true }).decode(bytes);
    if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be', { fatal: true }).decode(bytes);
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new BcfImportError(`${file} is not valid UTF-8 text`);
  }
}

function parseXml(text: string, file: string): XmlDomElement {
  let doc;
  try {
    doc = new DOMParser({
      onError(level, message) {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(text, 'text/xml');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new BcfImportError(`${file} is not well-formed XML: ${message.split('\n')[0]}`);
  }
  if (doc.doctype) throw new BcfImportError(`${file} has a DOCTYPE; BCF files have none`);
  const root = doc.documentElement;
  if (!root) throw new BcfImportError(`${file} has no root element`);
  return root;
}

function children(parent: XmlDomElement, name: string): XmlDomElement[] {
  const out: XmlDomElement[] = [];
  for (let n = parent.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as XmlDomElement).localName === name) out.push(n as XmlDomElement);
  }
  return out;
}

function child(parent: XmlDomElement, name: string): XmlDomElement | undefined {
  return children(parent, name)[0];
}

function textOf(parent: XmlDomElement, name: string): string | undefined {
  const c = child(parent, name);
  return c ? (c.textContent ?? '') : undefined;
}

function readNumber(parent: XmlDomElement, name: string, where: string): number {
  const raw = textOf(parent, name);
  if (raw === undefined) throw new BcfImportError(`${where}: ${name} is missing`);
  const trimmed = raw.trim();
  // xs:double's lexical space (INF and NaN refused: no camera or plane has them).
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)) throw new BcfImportError(`${where}: ${name} "${trimmed}" is not a number`);
  const value = Number(trimmed);
  if (!Number.isFinite(value)) throw new BcfImportError(`${where}: ${name} "${trimmed}" is not a finite number`);
  return value;
}

function readPoint(parent: XmlDomElement, name: string, where: string): Vec3 {
  const node = child(parent, name);
  if (!node) throw new BcfImportError(`${where}: ${name} is missing`);
  const at = `${where}, ${name}`;
  return fromBcfAxes([readNumber(node, 'X', at), readNumber(node, 'Y', at), readNumber(node, 'Z', at)]);
}

function readDirection(parent: XmlDomElement, name: string, where: string): Vec3 {
  const v = readPoint(parent, name, where);
  if (Math.hypot(v[0], v[1], v[2]) === 0) throw new BcfImportError(`${where}: ${name} is the zero vector`);
  return v;
}

/** An xs:dateTime as ISO 8601 UTC; one without a zone is taken as UTC. */
function readDate(raw: string | undefined, where: string, what: string): string {
  if (raw === undefined) throw new BcfImportError(`${where}: ${what} is missing`);
  const value = raw.trim();
  const m = /^-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/.exec(value);
  const t = m ? Date.parse(m[2] ? value : `${value}Z`) : NaN;
  if (!Number.isFinite(t)) throw new BcfImportError(`${where}: ${what} "${value}" is not a date-time`);
  return new Date(t).toISOString();
}

function readGuid(node: XmlDomElement, where: string): string {
  const guid = node.getAttribute('Guid');
  if (guid === null || guid === '') throw new BcfImportError(`${where}: the Guid attribute is missing`);
  if (!isBcfGuid(guid.trim())) throw new BcfImportError(`${where}: Guid "${guid}" is not a GUID`);
  return guid.trim();
}

function readCamera(root: XmlDomElement, where: string): BcfCamera | undefined {
  const persp = child(root, 'PerspectiveCamera');
  const ortho = child(root, 'OrthogonalCamera');
  if (persp) {
    const at = `${where}, PerspectiveCamera`;
    const position = readPoint(persp, 'CameraViewPoint', at);
    const direction = readDirection(persp, 'CameraDirection', at);
    const up = readDirection(persp, 'CameraUpVector', at);
    const fieldOfView = readNumber(persp, 'FieldOfView', at);
    if (!(fieldOfView > 0 && fieldOfView < 180)) throw new BcfImportError(`${at}: FieldOfView ${fieldOfView} is not between 0 and 180 degrees`);
    return { kind: 'perspective', position, direction, up, fieldOfView };
  }
  if (ortho) {
    const at = `${where}, OrthogonalCamera`;
    const position = readPoint(ortho, 'CameraViewPoint', at);
    const direction = readDirection(ortho, 'CameraDirection', at);
    const up = readDirection(ortho, 'CameraUpVector', at);
    const viewToWorldScale = readNumber(ortho, 'ViewToWorldScale', at);
    if (!(viewToWorldScale > 0)) throw new BcfImportError(`${at}: ViewToWorldScale ${viewToWorldScale} is not positive`);
    return { kind: 'orthogonal', position, direction, up, viewToWorldScale };
  }
  return undefined;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= 24 && PNG_SIGNATURE.every((b, i) => bytes[i] === b);
}

/** A PNG's width and height from its IHDR chunk, or undefined when it is not a PNG. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  if (!isPng(bytes)) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  return width > 0 && height > 0 ? { width, height } : undefined;
}

/** A file name inside the topic folder ('viewpoint.bcfv', './x.png', 'sub/x.png'); '..' refused. */
function resolveInFolder(folder: string, name: string): string | undefined {
  const parts = name.trim().replace(/\\/g, '/').split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.includes('..')) return undefined;
  return `${folder}/${parts.join('/')}`;
}

/**
 * A project from a BCF 2.1 zip. Throws BcfImportError (a sentence a person can act on) when the
 * file as a whole cannot be imported: not a zip, no or another BCF version, over the limits, no
 * topic readable. A topic or viewpoint that cannot be read is skipped and named in `problems`.
 * Unknown elements and files are ignored.
 */
export function importBcf(bytes: Uint8Array, limits: BcfImportLimits = BCF_IMPORT_LIMITS): BcfProject {
  const entries = listEntries(bytes, limits);
  const sizes = new Map(entries.map((e) => [e.name.replace(/\\/g, '/'), e]));
  const original = new Map(entries.map((e) => [e.name.replace(/\\/g, '/'), e.name]));

  // Everything is within the limits: inflate only what we read, one file at a time.
  const read = (path: string): Uint8Array | undefined => {
    const name = original.get(path);
    if (name === undefined) return undefined;
    try {
      return unzipSync(bytes, { filter: (f) => f.name === name })[name];
    } catch {
      throw new BcfImportError(`${path} cannot be unpacked: the archive is damaged`);
    }
  };
  const readXml = (path: string): XmlDomElement | undefined => {
    const entry = sizes.get(path);
    if (!entry) return undefined;
    if (entry.size > limits.maxXmlBytes) throw new BcfImportError(`${path} is ${mib(entry.size)}, more than the ${mib(limits.maxXmlBytes)} allowed for one XML file`);
    const data = read(path);
    return data && parseXml(decodeXmlBytes(data, path), path);
  };

  // bcf.version: at the root, or (zipped with its folder) one level down.
  let prefix = '';
  if (!sizes.has('bcf.version')) {
    const nested = [...sizes.keys()].filter((p) => /^[^/]+\/bcf\.version$/i.test(p));
    if (nested.length === 1) prefix = nested[0]!.slice(0, -'bcf.version'.length);
    else {
      const anyMarkup = [...sizes.keys()].some((p) => p.endsWith('/markup.bcf'));
      fail(
        anyMarkup
          ? 'This BCF file has no bcf.version, so its version is unknown (BCF 1.0 files have none); only BCF 2.1 can be imported.'
          : 'This file is not a BCF file: it has no bcf.version and no topic (markup.bcf).',
      );
    }
  }
  let versionRoot: XmlDomElement | undefined;
  try {
    versionRoot = readXml(`${prefix}bcf.version`);
  } catch (error) {
    fail(`This BCF file's bcf.version cannot be read: ${(error as Error).message}`);
  }
  if (!versionRoot || versionRoot.localName !== 'Version') fail('This BCF file\'s bcf.version is not a BCF version file (no <Version> element).');
  const versionId = (versionRoot.getAttribute('VersionId') ?? '').trim() || (textOf(versionRoot, 'DetailedVersion') ?? '').trim();
  if (versionId !== BCF_VERSION) {
    if (versionId === '') fail('This BCF file does not say its version (bcf.version has no VersionId); only BCF 2.1 can be imported.');
    const major = versionId.split('.').slice(0, 2).join('.');
    fail(
      major === BCF_VERSION
        ? `This BCF file's version is "${versionId}"; only BCF 2.1 can be imported.`
        : `This is a BCF ${versionId} file; only BCF 2.1 can be imported. Save or export it as BCF 2.1 in the program that made it.`,
    );
  }

  const project: BcfProject = { topics: [], problems: [] };
  const problems = project.problems!;
  try {
    const projectRoot = readXml(`${prefix}project.bcfp`);
    const p = projectRoot && child(projectRoot, 'Project');
    if (p) {
      const id = p.getAttribute('ProjectId');
      if (id) project.projectId = id;
      const name = textOf(p, 'Name');
      if (name !== undefined) project.projectName = name;
    }
  } catch (error) {
    problems.push(`project.bcfp was ignored: ${(error as Error).message}`);
  }

  // Topic folders: every folder of the root that holds something.
  const folders = new Set<string>();
  for (const path of sizes.keys()) {
    if (!path.startsWith(prefix)) continue;
    const rest = path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash > 0) folders.add(rest.slice(0, slash));
  }
  for (const folder of [...folders].sort()) {
    if (project.topics.length >= limits.maxTopics) {
      problems.push(`Only the first ${limits.maxTopics} topics were imported.`);
      break;
    }
    const base = `${prefix}${folder}`;
    if (!sizes.has(`${base}/markup.bcf`)) {
      // Folders such as 'Documents' hold no topic: quietly not one; a GUID-named one is a problem.
      if (isBcfGuid(folder)) problems.push(`Topic ${folder} was skipped: it has no markup.bcf.`);
      continue;
    }
    try {
      project.topics.push(readTopic(base, folder, readXml, read, sizes, problems));
    } catch (error) {
      if (!(error instanceof BcfImportError)) throw error;
      problems.push(`Topic ${folder} was skipped: ${error.message}`);
    }
  }
  if (project.topics.length === 0) {
    if (problems.length > 0) fail(`No topic of this BCF file could be imported. ${problems.join(' ')}`);
  }
  return project;
}

function readTopic(
  base: string,
  folder: string,
  readXml: (path: string) => XmlDomElement | undefined,
  read: (path: string) => Uint8Array | undefined,
  sizes: Map<string, Entry>,
  problems: string[],
): BcfTopic {
  const markupPath = `${base}/markup.bcf`;
  const markup = readXml(markupPath)!;
  if (markup.localName !== 'Markup') throw new BcfImportError(`${markupPath} is not a markup file (its root is <${markup.localName}>, not <Markup>)`);
  const topicNode = child(markup, 'Topic');
  if (!topicNode) throw new BcfImportError(`${markupPath} has no <Topic>`);
  const at = `${markupPath}, Topic`;
  const guid = readGuid(topicNode, at);
  const title = textOf(topicNode, 'Title');
  if (title === undefined) throw new BcfImportError(`${at}: Title is missing`);
  const topic: BcfTopic = {
    guid,
    title,
    status: (topicNode.getAttribute('TopicStatus') ?? '').trim(),
    author: (textOf(topicNode, 'CreationAuthor') ?? '').trim(),
    creationDate: readDate(textOf(topicNode, 'CreationDate'), at, 'CreationDate'),
    comments: [],
    viewpoints: [],
  };
  const topicType = topicNode.getAttribute('TopicType');
  if (topicType) topic.topicType = topicType;
  const modified = textOf(topicNode, 'ModifiedDate');
  if (modified !== undefined) topic.modifiedDate = readDate(modified, at, 'ModifiedDate');
  const modifiedAuthor = textOf(topicNode, 'ModifiedAuthor');
  if (modifiedAuthor !== undefined) topic.modifiedAuthor = modifiedAuthor.trim();
  const description = textOf(topicNode, 'Description');
  if (description !== undefined && description !== '') topic.description = description;

  for (const node of children(markup, 'Viewpoints')) {
    const where = `${markupPath}, Viewpoints`;
    let vpGuid: string;
    try {
      vpGuid = readGuid(node, where);
    } catch (error) {
      problems.push(`Topic ${guid}: a viewpoint was skipped: ${(error as Error).message}`);
      continue;
    }
    try {
      topic.viewpoints.push(readViewpoint(base, node, vpGuid, readXml, read, sizes, problems, guid));
    } catch (error) {
      if (!(error instanceof BcfImportError)) throw error;
      problems.push(`Topic ${guid}: viewpoint ${vpGuid} was skipped: ${error.message}`);
    }
  }
  // A topic that lists no viewpoint but has the default file (as BCF 1.0 wrote them).
  if (children(markup, 'Viewpoints').length === 0 && sizes.has(`${base}/viewpoint.bcfv`)) {
    try {
      const root = readXml(`${base}/viewpoint.bcfv`)!;
      const vpGuid = readGuid(root, `${base}/viewpoint.bcfv`);
      const vp = readVisinfo(root, vpGuid, `${base}/viewpoint.bcfv`);
      const png = read(`${base}/snapshot.png`);
      if (png && isPng(png)) vp.snapshotPng = png;
      topic.viewpoints.push(vp);
    } catch (error) {
      if (!(error instanceof BcfImportError)) throw error;
      problems.push(`Topic ${guid}: viewpoint.bcfv was skipped: ${error.message}`);
    }
  }

  const known = new Set(topic.viewpoints.map((v) => v.guid.toLowerCase()));
  for (const node of children(markup, 'Comment')) {
    const where = `${markupPath}, Comment`;
    try {
      const commentGuid = readGuid(node, where);
      const text = textOf(node, 'Comment');
      if (text === undefined) throw new BcfImportError(`${where} ${commentGuid}: the Comment text is missing`);
      const comment: BcfComment = {
        guid: commentGuid,
        date: readDate(textOf(node, 'Date'), `${where} ${commentGuid}`, 'Date'),
        author: (textOf(node, 'Author') ?? '').trim(),
        text,
      };
      const vpNode = child(node, 'Viewpoint');
      const vpGuid = vpNode?.getAttribute('Guid')?.trim();
      if (vpGuid && known.has(vpGuid.toLowerCase())) comment.viewpointGuid = topic.viewpoints.find((v) => v.guid.toLowerCase() === vpGuid.toLowerCase())!.guid;
      const cm = textOf(node, 'ModifiedDate');
      if (cm !== undefined) comment.modifiedDate = readDate(cm, `${where} ${commentGuid}`, 'ModifiedDate');
      const ca = textOf(node, 'ModifiedAuthor');
      if (ca !== undefined) comment.modifiedAuthor = ca.trim();
      topic.comments.push(comment);
    } catch (error) {
      if (!(error instanceof BcfImportError)) throw error;
      problems.push(`Topic ${guid}: a comment was skipped: ${error.message}`);
    }
  }
  if (folder.toLowerCase() !== guid.toLowerCase()) {
    // The folder should be named by the topic's GUID; the markup's GUID is the one kept.
    problems.push(`Topic ${guid} is in a folder named ${folder}; the markup's GUID was kept.`);
  }
  return topic;
}

function readViewpoint(
  base: string,
  node: XmlDomElement,
  guid: string,
  readXml: (path: string) => XmlDomElement | undefined,
  read: (path: string) => Uint8Array | undefined,
  sizes: Map<string, Entry>,
  problems: string[],
  topicGuid: string,
): BcfViewpoint {
  const fileName = textOf(node, 'Viewpoint');
  let vp: BcfViewpoint;
  if (fileName === undefined || fileName.trim() === '') {
    vp = { guid, clippingPlanes: [], lines: [] };
  } else {
    const path = resolveInFolder(base, fileName);
    if (!path) throw new BcfImportError(`its file name "${fileName}" is not a name inside the topic folder`);
    if (!sizes.has(path)) throw new BcfImportError(`its file ${fileName} is not in the archive`);
    const root = readXml(path)!;
    if (root.localName !== 'VisualizationInfo') throw new BcfImportError(`${path} is not a viewpoint file (root <${root.localName}>)`);
    vp = readVisinfo(root, guid, path);
  }
  const snapshotName = textOf(node, 'Snapshot');
  if (snapshotName !== undefined && snapshotName.trim() !== '') {
    const path = resolveInFolder(base, snapshotName);
    const data = path && sizes.has(path) ? read(path) : undefined;
    if (!data) problems.push(`Topic ${topicGuid}: viewpoint ${guid}: its snapshot ${snapshotName} is not in the archive.`);
    else if (!isPng(data)) problems.push(`Topic ${topicGuid}: viewpoint ${guid}: its snapshot ${snapshotName} is not a PNG; it was left out.`);
    else vp.snapshotPng = data;
  }
  return vp;
}

function readVisinfo(root: XmlDomElement, guid: string, where: string): BcfViewpoint {
  const vp: BcfViewpoint = { guid, clippingPlanes: [], lines: [] };
  const camera = readCamera(root, where);
  if (camera) vp.camera = camera;
  const planes = child(root, 'ClippingPlanes');
  if (planes) {
    for (const plane of children(planes, 'ClippingPlane')) {
      vp.clippingPlanes.push({
        location: readPoint(plane, 'Location', `${where}, ClippingPlane`),
        direction: readDirection(plane, 'Direction', `${where}, ClippingPlane`),
      });
    }
  }
  const lines = child(root, 'Lines');
  if (lines) {
    for (const line of children(lines, 'Line')) {
      vp.lines.push({ start: readPoint(line, 'StartPoint', `${where}, Line`), end: readPoint(line, 'EndPoint', `${where}, Line`) });
    }
  }
  return vp;
}
