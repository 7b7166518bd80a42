import { unzipSync, zipSync, type Zippable } from 'fflate';
import { markupXml, readTopic, requireGuid, viewpointFiles } from './markup.ts';
import { visinfoXml } from './visinfo.ts';
import { child, decodeXmlBytes, parseXml, textOf, type XmlDomElement } from './xml-reader.ts';
import { el, renderXml, textEl } from './xml-writer.ts';
import { BCF_IMPORT_LIMITS, BCF_VERSION, BcfExportError, BcfImportError, isBcfGuid, type BcfImportLimits, type BcfProject } from './model.ts';

/**
 * A BCF 2.1 file (`.bcfzip`): `exportBcf` writes a project of topics, `importBcf` reads one back.
 *
 * The archive: `bcf.version`, `project.bcfp` (when the project has a name), and one folder per
 * topic named by its GUID with `markup.bcf` (the topic, its comments and its viewpoints), one
 * `.bcfv` file per viewpoint and its snapshot PNG. The first viewpoint of a topic is written as
 * `viewpoint.bcfv` / `snapshot.png` (the format asks for one of each under those names), the
 * others as `{guid}.bcfv` / `{guid}.png`; folders have their own entries in the zip.
 *
 * Import checks the zip's directory against the limits before inflating anything (zip bombs), then
 * inflates one file at a time.
 */

// ---- export ------------------------------------------------------------------------------------

const enc = new TextEncoder();

/** The project as a BCF 2.1 zip (`.bcfzip`). Throws BcfExportError for what cannot be written. */
export function exportBcf(project: BcfProject): Uint8Array {
  const files: Zippable = {
    'bcf.version': enc.encode(renderXml(el('Version', { VersionId: BCF_VERSION }, textEl('DetailedVersion', BCF_VERSION)))),
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
    if (entry.size > limits.maxXmlBytes)
      throw new BcfImportError(`${path} is ${mib(entry.size)}, more than the ${mib(limits.maxXmlBytes)} allowed for one XML file`);
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
  if (!versionRoot || versionRoot.localName !== 'Version') fail("This BCF file's bcf.version is not a BCF version file (no <Version> element).");
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
