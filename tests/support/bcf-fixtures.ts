import { nameToBcfAuthor } from '../../src/protocol/bcf/authors';
import type { BcfProject } from '../../src/protocol/bcf/model';

/** Fixtures of the BCF tests: a project with two topics, both cameras, planes, lines and a snapshot. */

/** A real 3 x 2 PNG (signature, IHDR with its size; the rest does not matter to BCF). */
export function tinyPng(width = 3, height = 2): Uint8Array {
  const png = new Uint8Array(33);
  png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(png.buffer).setUint32(16, width);
  new DataView(png.buffer).setUint32(20, height);
  png.set([8, 6, 0, 0, 0], 24);
  return png;
}

export const T1 = 'a0b1c2d3-0000-4000-8000-000000000001';
export const T2 = 'a0b1c2d3-0000-4000-8000-000000000002';
export const V1 = 'b0b1c2d3-0000-4000-8000-000000000001';
export const V2 = 'b0b1c2d3-0000-4000-8000-000000000002';
export const V3 = 'b0b1c2d3-0000-4000-8000-000000000003';
export const V4 = 'b0b1c2d3-0000-4000-8000-000000000004';
export const C1 = 'c0b1c2d3-0000-4000-8000-000000000001';

export function sampleProject(): BcfProject {
  return {
    projectId: 'scene-42',
    projectName: 'Tower <B> & "annex"',
    topics: [
      {
        guid: T1,
        title: 'Duct clashes with beam',
        status: 'Open',
        author: nameToBcfAuthor({ firstName: 'Ada', lastName: 'Lovelace' }),
        creationDate: '2026-01-02T03:04:05.678Z',
        modifiedDate: '2026-01-03T00:00:00.000Z',
        description: 'Line one\r\nline two with <tags> & ]]> and "quotes"\tand a tab',
        comments: [
          { guid: C1, date: '2026-01-02T04:00:00.000Z', author: 'jane.doe@example.com', text: 'Agreed — move the duct 200 mm.', viewpointGuid: V1 },
        ],
        viewpoints: [
          {
            guid: V1,
            camera: { kind: 'perspective', position: [10, 5, -3], direction: [0, 0, -1], up: [0, 1, 0], fieldOfView: 55 },
            clippingPlanes: [{ location: [0, 2, 0], direction: [0, 1, 0] }],
            lines: [{ start: [1, 2, 3], end: [1, 2, 3] }, { start: [0, 0, 0], end: [4, 0, 0] }],
            snapshotPng: tinyPng(),
          },
          {
            guid: V2,
            camera: { kind: 'orthogonal', position: [0, 50, 0], direction: [0, -1, 0], up: [0, 0, -1], viewToWorldScale: 12.5 },
            clippingPlanes: [],
            lines: [],
          },
        ],
      },
      {
        guid: T2,
        title: 'Resolved one',
        status: 'Closed',
        author: 'someone@example.com',
        creationDate: '2026-02-01T00:00:00.000Z',
        comments: [],
        viewpoints: [{ guid: V3, clippingPlanes: [], lines: [] }],
      },
    ],
  };
}

