import { isPng } from './png.ts';
import { readVisinfo } from './visinfo.ts';
import { child, children, readDate, readGuid, textOf, type XmlDomElement } from './xml-reader.ts';
import { el, renderXml, textEl } from './xml-writer.ts';
import { BcfExportError, BcfImportError, isBcfGuid, type BcfComment, type BcfTopic, type BcfViewpoint } from './model.ts';

/**
 * A topic's folder in the archive: its `markup.bcf` (markup.xsd: the topic, its comments and the
 * list of its viewpoints) and the viewpoint and snapshot files it names. The first viewpoint of a
 * topic is written as `viewpoint.bcfv` / `snapshot.png` (the format asks for one of each under
 * those names), the others as `{guid}.bcfv` / `{guid}.png`.
 */

// ---- write -------------------------------------------------------------------------------------

export function requireGuid(value: string, what: string): string {
  if (!isBcfGuid(value)) throw new BcfExportError(`BCF export: ${what} "${value}" is not a GUID`);
  return value;
}

export function requireDate(value: string, what: string): string {
  const t = Date.parse(value);
  if (!Number.isFinite(t)) throw new BcfExportError(`BCF export: ${what} "${value}" is not a date`);
  return new Date(t).toISOString();
}

export function viewpointFiles(index: number, guid: string): { bcfv: string; png: string } {
  return index === 0 ? { bcfv: 'viewpoint.bcfv', png: 'snapshot.png' } : { bcfv: `${guid}.bcfv`, png: `${guid}.png` };
}

/** The topic's `markup.bcf`. Throws BcfExportError for what cannot be written faithfully. */
export function markupXml(topic: BcfTopic): string {
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

// ---- read --------------------------------------------------------------------------------------

/** A file name inside the topic folder ('viewpoint.bcfv', './x.png', 'sub/x.png'); '..' refused. */
export function resolveInFolder(folder: string, name: string): string | undefined {
  const parts = name
    .trim()
    .replace(/\\/g, '/')
    .split('/')
    .filter((p) => p !== '' && p !== '.');
  if (parts.length === 0 || parts.includes('..')) return undefined;
  return `${folder}/${parts.join('/')}`;
}

/**
 * A topic from its folder: its markup, then each viewpoint it lists (or, listing none, the default
 * `viewpoint.bcfv`), then its comments. A viewpoint or comment that cannot be read is skipped and
 * named in `problems`; a markup that cannot be read throws BcfImportError.
 */
export function readTopic(
  base: string,
  folder: string,
  readXml: (path: string) => XmlDomElement | undefined,
  read: (path: string) => Uint8Array | undefined,
  sizes: ReadonlyMap<string, unknown>,
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

export function readViewpoint(
  base: string,
  node: XmlDomElement,
  guid: string,
  readXml: (path: string) => XmlDomElement | undefined,
  read: (path: string) => Uint8Array | undefined,
  sizes: ReadonlyMap<string, unknown>,
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
