import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { exportBcf, importBcf } from '../../../../src/protocol/bcf/archive';
import { BCF_IMPORT_LIMITS, BcfExportError, BcfImportError } from '../../../../src/protocol/bcf/model';
import { checkBcf21, type Bcf21Schema } from '../../../support/bcf21-conformance';
import { T1, T2, V1, V2, V3, V4, sampleProject, tinyPng } from '../../../support/bcf-fixtures';

function entries(bytes: Uint8Array): Record<string, Uint8Array> {
  return unzipSync(bytes);
}

describe('exportBcf', () => {
  it('writes bcf.version, project.bcfp, and a folder per topic with markup, viewpoints and snapshots', () => {
    const files = entries(exportBcf(sampleProject()));
    expect(Object.keys(files).sort()).toEqual(
      [
        'bcf.version',
        'project.bcfp',
        `${T1}/`,
        `${T1}/markup.bcf`,
        `${T1}/viewpoint.bcfv`,
        `${T1}/snapshot.png`,
        `${T1}/${V2}.bcfv`,
        `${T2}/`,
        `${T2}/markup.bcf`,
        `${T2}/viewpoint.bcfv`,
      ].sort(),
    );
    expect(strFromU8(files['bcf.version']!)).toContain('<Version VersionId="2.1">');
    const markup = strFromU8(files[`${T1}/markup.bcf`]!);
    expect(markup).toContain(`<Topic Guid="${T1}" TopicStatus="Open">`);
    expect(markup).toContain('<Viewpoint>viewpoint.bcfv</Viewpoint>');
    expect(markup).toContain('<Snapshot>snapshot.png</Snapshot>');
    expect(markup).toContain(`<Viewpoint Guid="${V1}"/>`);
    // Escaped once, carriage return kept as a reference.
    expect(markup).toContain('Line one&#13;\nline two with &lt;tags&gt; &amp; ]]&gt; and "quotes"\tand a tab');
    expect(strFromU8(files['project.bcfp']!)).toContain('<Name>Tower &lt;B&gt; &amp; "annex"</Name>');
  });

  it('writes Z-up coordinates: scene (x, y, z) -> BCF (x, -z, y)', () => {
    const vis = strFromU8(entries(exportBcf(sampleProject()))[`${T1}/viewpoint.bcfv`]!);
    expect(vis).toMatch(/<CameraViewPoint>\s*<X>10<\/X>\s*<Y>3<\/Y>\s*<Z>5<\/Z>/);
    expect(vis).toMatch(/<CameraDirection>\s*<X>0<\/X>\s*<Y>1<\/Y>\s*<Z>0<\/Z>/);
    expect(vis).toMatch(/<CameraUpVector>\s*<X>0<\/X>\s*<Y>0<\/Y>\s*<Z>1<\/Z>/);
    expect(vis).toMatch(/<FieldOfView>55<\/FieldOfView>/);
  });

  it('every XML file it writes conforms to the BCF 2.1 schemas', () => {
    const files = entries(exportBcf(sampleProject()));
    const schemaOf = (name: string): Bcf21Schema | undefined =>
      name === 'bcf.version'
        ? 'version.xsd'
        : name === 'project.bcfp'
          ? 'project.xsd'
          : name.endsWith('.bcf')
            ? 'markup.xsd'
            : name.endsWith('.bcfv')
              ? 'visinfo.xsd'
              : undefined;
    let checked = 0;
    for (const [name, data] of Object.entries(files)) {
      const schema = schemaOf(name);
      if (!schema) continue;
      expect({ name, errors: checkBcf21(strFromU8(data), schema) }).toEqual({ name, errors: [] });
      checked++;
    }
    expect(checked).toBe(7);
  });

  it('clamps the field of view into the schema range 45..60', () => {
    const p = sampleProject();
    const cam = p.topics[0]!.viewpoints[0]!.camera!;
    if (cam.kind !== 'perspective') throw new Error('fixture');
    cam.fieldOfView = 90;
    expect(strFromU8(entries(exportBcf(p))[`${T1}/viewpoint.bcfv`]!)).toContain('<FieldOfView>60</FieldOfView>');
    cam.fieldOfView = 20;
    expect(strFromU8(entries(exportBcf(p))[`${T1}/viewpoint.bcfv`]!)).toContain('<FieldOfView>45</FieldOfView>');
  });

  it('refuses what it cannot write faithfully, naming it', () => {
    const bad = sampleProject();
    bad.topics[0]!.guid = 'not-a-guid';
    expect(() => exportBcf(bad)).toThrow(new BcfExportError('BCF export: topic GUID "not-a-guid" is not a GUID'));
    const nan = sampleProject();
    nan.topics[0]!.viewpoints[0]!.camera!.position = [Number.NaN, 0, 0];
    expect(() => exportBcf(nan)).toThrow(/camera position is not a finite number/);
    const dangling = sampleProject();
    dangling.topics[0]!.comments[0]!.viewpointGuid = V3;
    expect(() => exportBcf(dangling)).toThrow(/refers to viewpoint .* which the topic does not have/);
    const twice = sampleProject();
    twice.topics[1]!.guid = T1;
    expect(() => exportBcf(twice)).toThrow(/two topics have the GUID/);
  });

  it('replaces characters XML cannot carry rather than writing a broken file', () => {
    const p = sampleProject();
    p.topics[0]!.title = 'bell\u0007 and lone \uD800 surrogate';
    const back = importBcf(exportBcf(p));
    expect(back.topics[0]!.title).toBe('bell\uFFFD and lone \uFFFD surrogate');
  });
});

describe('importBcf', () => {
  it('round trip: the same topics, comments and viewpoints come back', () => {
    const project = sampleProject();
    const back = importBcf(exportBcf(project));
    expect(back.problems).toEqual([]);
    expect(back.projectName).toBe(project.projectName);
    expect(back.projectId).toBe(project.projectId);
    const { problems: _, ...rest } = back;
    // The first topic's description keeps its carriage return, tab, and markup characters.
    expect(rest).toEqual(project);
  });

  function zip(files: Record<string, string | Uint8Array>): Uint8Array {
    return zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, typeof v === 'string' ? strToU8(v) : v])));
  }
  const version = (id: string) => `<?xml version="1.0"?><Version VersionId="${id}"><DetailedVersion>${id}</DetailedVersion></Version>`;
  const markup = (guid: string, extra = '') =>
    `<Markup><Topic Guid="${guid}" TopicStatus="Open"><Title>T</Title><CreationDate>2020-01-01T00:00:00</CreationDate><CreationAuthor>a@b</CreationAuthor></Topic>${extra}</Markup>`;

  it('says clearly what is wrong with a file that is not BCF', () => {
    expect(() => importBcf(strToU8('hello, I am a text file'))).toThrow(
      new BcfImportError('This file is not a BCF file: it is not a zip archive (or the archive is damaged).'),
    );
    expect(() => importBcf(zip({ 'readme.txt': 'x' }))).toThrow('This file is not a BCF file: it has no bcf.version and no topic (markup.bcf).');
    expect(() => importBcf(zip({ [`${T1}/markup.bcf`]: markup(T1) }))).toThrow(/has no bcf.version, so its version is unknown/);
    expect(() => importBcf(zip({ 'bcf.version': '<Version VersionId="2.1"' }))).toThrow(/bcf.version cannot be read: bcf.version is not well-formed XML/);
  });

  it('takes only 2.1 and names the version it got', () => {
    expect(() => importBcf(zip({ 'bcf.version': version('2.0') }))).toThrow(
      'This is a BCF 2.0 file; only BCF 2.1 can be imported. Save or export it as BCF 2.1 in the program that made it.',
    );
    expect(() => importBcf(zip({ 'bcf.version': version('3.0') }))).toThrow(
      'This is a BCF 3.0 file; only BCF 2.1 can be imported. Save or export it as BCF 2.1 in the program that made it.',
    );
    expect(() => importBcf(zip({ 'bcf.version': '<Version/>' }))).toThrow(/does not say its version/);
    expect(importBcf(zip({ 'bcf.version': version('2.1'), [`${T1}/markup.bcf`]: markup(T1) })).topics).toHaveLength(1);
  });

  it('checks the zip bomb limits before inflating anything', () => {
    const big = new Uint8Array(2 * 1024 * 1024); // deflates to a few kB
    const bytes = zip({ 'bcf.version': version('2.1'), [`${T1}/markup.bcf`]: markup(T1), [`${T1}/big.bin`]: big });
    expect(bytes.length).toBeLessThan(64 * 1024);
    expect(() => importBcf(bytes, { ...BCF_IMPORT_LIMITS, maxTotalBytes: 1024 * 1024 })).toThrow(/would unpack to 2\.0 MiB, more than the 1\.0 MiB allowed/);
    expect(() => importBcf(bytes, { ...BCF_IMPORT_LIMITS, maxEntries: 2 })).toThrow('This BCF file has more than 2 entries; it is not imported.');
    const hugeXml = zip({ 'bcf.version': version('2.1'), [`${T1}/markup.bcf`]: markup(T1, `<Comment>${'x'.repeat(300_000)}</Comment>`) });
    const p = importBcf(zip({ 'bcf.version': version('2.1'), [`${T2}/markup.bcf`]: markup(T2) }));
    expect(p.topics).toHaveLength(1);
    expect(() => importBcf(hugeXml, { ...BCF_IMPORT_LIMITS, maxXmlBytes: 100_000 })).toThrow(/more than the 0\.1 MiB allowed for one XML file/);
  });

  it('does not trust an entry that declares a smaller size than it inflates to', () => {
    const bytes = zip({ 'bcf.version': version('2.1'), [`${T1}/markup.bcf`]: markup(T1, `<Junk>${'y'.repeat(100_000)}</Junk>`) });
    // Lower the declared size of markup.bcf in its central directory entry (the one fflate reads).
    const view = new DataView(bytes.buffer);
    for (let i = bytes.length - 22; i >= 0; i--) {
      if (view.getUint32(i, true) === 0x02014b50 && strFromU8(bytes.subarray(i + 46, i + 46 + view.getUint16(i + 28, true))).endsWith('markup.bcf')) {
        view.setUint32(i + 24, 100, true);
      }
    }
    // Only the declared 100 bytes are inflated: the markup is cut, so it is not well-formed.
    expect(() => importBcf(bytes)).toThrow(/No topic of this BCF file could be imported\. Topic .* was skipped: .*markup.bcf is not well-formed XML/);
  });

  it('skips a broken topic with a reason and imports the others', () => {
    const bytes = zip({
      'bcf.version': version('2.1'),
      [`${T1}/markup.bcf`]: '<Markup><Topic Guid=',
      [`${T2}/markup.bcf`]: markup(T2),
      'b0b1c2d3-0000-4000-8000-000000000009/viewpoint.bcfv': '<VisualizationInfo/>',
      'Documents/spec.pdf': 'pdf',
    });
    const p = importBcf(bytes);
    expect(p.topics.map((t) => t.guid)).toEqual([T2]);
    expect(p.problems).toEqual([
      expect.stringMatching(new RegExp(`^Topic ${T1} was skipped: ${T1}/markup.bcf is not well-formed XML: `)),
      'Topic b0b1c2d3-0000-4000-8000-000000000009 was skipped: it has no markup.bcf.',
    ]);
  });

  it('names GUIDs that are not GUIDs', () => {
    const p = importBcf(
      zip({
        'bcf.version': version('2.1'),
        'x/markup.bcf': markup('12345'),
        [`${T2}/markup.bcf`]: markup(T2, '<Comment Guid="nope"><Date>2020-01-01T00:00:00Z</Date><Author>a</Author><Comment>c</Comment></Comment>'),
      }),
    );
    expect(p.topics.map((t) => t.guid)).toEqual([T2]);
    expect(p.topics[0]!.comments).toEqual([]);
    expect(p.problems).toEqual([
      `Topic ${T2}: a comment was skipped: ${T2}/markup.bcf, Comment: Guid "nope" is not a GUID`,
      'Topic x was skipped: x/markup.bcf, Topic: Guid "12345" is not a GUID',
    ]);
  });

  it('ignores unknown elements, reads dates without a zone as UTC, and accepts any 0..180 field of view', () => {
    const vis = `<?xml version="1.0" encoding="UTF-8"?>
      <VisualizationInfo Guid="${V1}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
        <Components><Visibility DefaultVisibility="true"/></Components>
        <PerspectiveCamera><CameraViewPoint><X>1</X><Y>2</Y><Z>3</Z></CameraViewPoint>
          <CameraDirection><X>0</X><Y>1</Y><Z>0</Z></CameraDirection><CameraUpVector><X>0</X><Y>0</Y><Z>1</Z></CameraUpVector>
          <FieldOfView>90.5</FieldOfView><AspectRatio>1.5</AspectRatio></PerspectiveCamera>
        <Vendor><Whatever/></Vendor>
      </VisualizationInfo>`;
    const p = importBcf(
      zip({
        'bcf.version': version('2.1'),
        [`${T1}/markup.bcf`]: markup(
          T1,
          `<Viewpoints Guid="${V1}"><Viewpoint>viewpoint.bcfv</Viewpoint><Snapshot>snapshot.png</Snapshot></Viewpoints><Extra/>`,
        ),
        [`${T1}/viewpoint.bcfv`]: vis,
        [`${T1}/snapshot.png`]: tinyPng(),
      }),
    );
    expect(p.problems).toEqual([]);
    const t = p.topics[0]!;
    expect(t.creationDate).toBe('2020-01-01T00:00:00.000Z');
    expect(t.viewpoints[0]).toEqual({
      guid: V1,
      camera: { kind: 'perspective', position: [1, 3, -2], direction: [0, 0, -1], up: [0, 1, 0], fieldOfView: 90.5 },
      clippingPlanes: [],
      lines: [],
      snapshotPng: tinyPng(),
    });
  });

  it('reports a viewpoint whose file is missing or broken, and a snapshot that is not a PNG', () => {
    const p = importBcf(
      zip({
        'bcf.version': version('2.1'),
        [`${T1}/markup.bcf`]: markup(
          T1,
          `<Viewpoints Guid="${V1}"><Viewpoint>gone.bcfv</Viewpoint></Viewpoints>` +
            `<Viewpoints Guid="${V2}"><Viewpoint>v2.bcfv</Viewpoint><Snapshot>s.png</Snapshot></Viewpoints>` +
            `<Viewpoints Guid="${V3}"><Viewpoint>../../etc/passwd</Viewpoint></Viewpoints>` +
            `<Viewpoints Guid="${V4}"><Viewpoint>v4.bcfv</Viewpoint><Snapshot>s.png</Snapshot></Viewpoints>`,
        ),
        [`${T1}/v2.bcfv`]: `<VisualizationInfo Guid="${V2}"><OrthogonalCamera><CameraViewPoint><X>a</X></CameraViewPoint></OrthogonalCamera></VisualizationInfo>`,
        [`${T1}/v4.bcfv`]: `<VisualizationInfo Guid="${V4}"/>`,
        [`${T1}/s.png`]: 'GIF89a',
      }),
    );
    expect(p.topics[0]!.viewpoints).toEqual([{ guid: V4, clippingPlanes: [], lines: [] }]);
    expect(p.problems).toEqual([
      `Topic ${T1}: viewpoint ${V1} was skipped: its file gone.bcfv is not in the archive`,
      `Topic ${T1}: viewpoint ${V2} was skipped: ${T1}/v2.bcfv, OrthogonalCamera, CameraViewPoint: X "a" is not a number`,
      `Topic ${T1}: viewpoint ${V3} was skipped: its file name "../../etc/passwd" is not a name inside the topic folder`,
      `Topic ${T1}: viewpoint ${V4}: its snapshot s.png is not a PNG; it was left out.`,
    ]);
  });

  it('refuses a DOCTYPE (no entity expansion)', () => {
    const p = () =>
      importBcf(
        zip({
          'bcf.version': version('2.1'),
          [`${T1}/markup.bcf`]: `<!DOCTYPE Markup [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>${markup(T1)}`,
        }),
      );
    expect(p).toThrow(BcfImportError);
    expect(p).toThrow(/markup.bcf has a DOCTYPE|not well-formed/);
  });
});
