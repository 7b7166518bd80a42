import { describe, expect, it } from 'vitest';
import { markupXml, readTopic, requireDate, requireGuid, resolveInFolder, viewpointFiles } from '../../../../src/protocol/bcf/markup';
import { BcfExportError, BcfImportError, type BcfTopic } from '../../../../src/protocol/bcf/model';
import { visinfoXml } from '../../../../src/protocol/bcf/visinfo';
import { parseXml } from '../../../../src/protocol/bcf/xml-reader';
import { T1, V1, sampleProject } from '../../../support/bcf-fixtures';

/** A topic's folder as the archive would hold it, and readTopic's view of it. */
function folderOf(topic: BcfTopic, extra: Record<string, string> = {}) {
  const files = new Map<string, Uint8Array>([[`${topic.guid}/markup.bcf`, new TextEncoder().encode(markupXml(topic))]]);
  topic.viewpoints.forEach((vp, i) => {
    const names = viewpointFiles(i, vp.guid);
    files.set(`${topic.guid}/${names.bcfv}`, new TextEncoder().encode(visinfoXml(vp)));
    if (vp.snapshotPng) files.set(`${topic.guid}/${names.png}`, vp.snapshotPng);
  });
  for (const [path, text] of Object.entries(extra)) files.set(path, new TextEncoder().encode(text));
  const read = (path: string) => files.get(path);
  const readXml = (path: string) => (files.has(path) ? parseXml(new TextDecoder().decode(files.get(path)), path) : undefined);
  return { files, read, readXml };
}

describe('markup', () => {
  it('names the first viewpoint viewpoint.bcfv / snapshot.png and the others by their GUID', () => {
    expect(viewpointFiles(0, V1)).toEqual({ bcfv: 'viewpoint.bcfv', png: 'snapshot.png' });
    expect(viewpointFiles(1, V1)).toEqual({ bcfv: `${V1}.bcfv`, png: `${V1}.png` });
  });

  it('writes a topic and reads it back the same, with its comments, viewpoints and snapshot', () => {
    const topic = sampleProject().topics[0]!;
    const { files, read, readXml } = folderOf(topic);
    const problems: string[] = [];
    expect(readTopic(topic.guid, topic.guid, readXml, read, files, problems)).toEqual(topic);
    expect(problems).toEqual([]);
  });

  it('keeps the markup GUID of a topic in a folder named otherwise, and says so', () => {
    const topic = sampleProject().topics[1]!;
    const { files, read, readXml } = folderOf(topic);
    const problems: string[] = [];
    expect(readTopic(topic.guid, 'Other', readXml, read, files, problems).guid).toBe(topic.guid);
    expect(problems).toEqual([`Topic ${topic.guid} is in a folder named Other; the markup's GUID was kept.`]);
  });

  it('refuses a file that is not a markup, and a comment that names a viewpoint the topic does not have', () => {
    const files = new Map([[`${T1}/markup.bcf`, new Uint8Array()]]);
    const readXml = () => parseXml('<VisualizationInfo/>', `${T1}/markup.bcf`);
    expect(() => readTopic(T1, T1, readXml, () => undefined, files, [])).toThrow(
      new BcfImportError(`${T1}/markup.bcf is not a markup file (its root is <VisualizationInfo>, not <Markup>)`),
    );
    const dangling = sampleProject().topics[0]!;
    dangling.comments[0]!.viewpointGuid = 'b0b1c2d3-0000-4000-8000-00000000000f';
    expect(() => markupXml(dangling)).toThrow(BcfExportError);
  });

  it('checks GUIDs and dates on the way out', () => {
    expect(requireGuid(T1, 'x')).toBe(T1);
    expect(() => requireGuid('nope', 'topic GUID')).toThrow('BCF export: topic GUID "nope" is not a GUID');
    expect(requireDate('2026-01-02T03:04:05+01:00', 'd')).toBe('2026-01-02T02:04:05.000Z');
    expect(() => requireDate('soon', 'the date')).toThrow('BCF export: the date "soon" is not a date');
  });

  it('resolves file names inside the topic folder only', () => {
    expect(resolveInFolder('T', './x.png')).toBe('T/x.png');
    expect(resolveInFolder('T', 'sub\\x.png')).toBe('T/sub/x.png');
    expect(resolveInFolder('T', '../x.png')).toBeUndefined();
    expect(resolveInFolder('T', ' ')).toBeUndefined();
  });
});
