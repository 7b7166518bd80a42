import { describe, expect, it } from 'vitest';
import { exportBcf, importBcf } from '../../../../src/protocol/bcf/archive';
import { horizontalFov, isBcfGuid } from '../../../../src/protocol/bcf/model';
import {
  BCF_DEFAULT_TARGET_DISTANCE,
  bcfGuidFor,
  bcfStatusToComment,
  bcfToComments,
  clippingPlaneToSection,
  commentsToBcf,
  sectionToClippingPlane,
} from '../../../../src/protocol/bcf/comments';
import { CreateCommentRequest, type CommentThread } from '../../../../src/protocol/comments';
import { tinyPng } from '../../../support/bcf-fixtures';

const ada = { _id: 'u1', firstName: 'Ada', lastName: 'Lovelace' };
const bob = { _id: 'u2', firstName: 'Bob', lastName: 'Builder' };

function thread(id: string, over: Partial<CommentThread> = {}): CommentThread {
  return {
    _id: id,
    sceneId: 'scene-1',
    anchor: { _id: `a-${id}`, position: [1, 2, 3], target: [0, 1, 0], direction: [0, 0, -1] },
    view: {
      projection: 'Perspective',
      position: [10, 5, 10],
      target: [0, 1, 0],
      up: [0, 1, 0],
      fov: 50,
      orthoHeight: 8,
      sections: [{ normal: [0, -1, 0], constant: 2 }],
      measurements: [
        { kind: 'length', points: [[0, 0, 0], [1, 0, 0]] },
        { kind: 'angle', points: [[5, 0, 0], [6, 0, 0], [6, 1, 0]] },
        { kind: 'area', points: [[0, 0, 5], [1, 0, 5], [1, 0, 6], [0, 0, 6]] },
      ],
    },
    author: ada,
    title: 'Beam too low',
    text: 'The beam hits the duct.',
    status: 'open',
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:00.000Z',
    replies: [{ _id: `r-${id}`, author: bob, text: 'Will move it.', createdAt: '2026-03-01T11:00:00.000Z', updatedAt: '2026-03-01T11:00:00.000Z' }],
    ...over,
  };
}

describe('ids', () => {
  it('makes stable, distinct GUIDs from our ids and keeps ids that are GUIDs', () => {
    const a = bcfGuidFor('c-1');
    expect(isBcfGuid(a)).toBe(true);
    expect(bcfGuidFor('c-1')).toBe(a);
    expect(bcfGuidFor('c-2')).not.toBe(a);
    expect(bcfGuidFor('c-1/view')).not.toBe(a);
    const many = new Set(Array.from({ length: 5000 }, (_, i) => bcfGuidFor(`id${i}`)));
    expect(many.size).toBe(5000);
    expect(bcfGuidFor('A0B1C2D3-0000-4000-8000-000000000001')).toBe('a0b1c2d3-0000-4000-8000-000000000001');
  });
});

describe('section planes <-> clipping planes', () => {
  it('keeps the same kept side: BCF direction points to the side cut away', () => {
    const section = { normal: [0, -1, 0] as [number, number, number], constant: 2 }; // keeps y <= 2
    const plane = sectionToClippingPlane(section)!;
    expect(plane.location).toEqual([0, 2, 0]);
    expect(plane.direction).toEqual([0, 1, 0]); // above y = 2 is cut away
    expect(clippingPlaneToSection(plane)).toEqual(section);
    const scaled = sectionToClippingPlane({ normal: [0, 0, 2], constant: -4 })!; // keeps z >= 2
    expect(scaled).toEqual({ location: [0, 0, 2], direction: [0, 0, -1] });
  });
});

describe('commentsToBcf / bcfToComments', () => {
  const threads = [thread('c-1'), thread('c-2', { status: 'resolved', title: '', text: 'Second line\nmore', view: { ...thread('x').view, projection: 'Orthographic', orthoHeight: 12 } })];

  it('a thread is a topic with its status, author, dates, replies and one viewpoint', () => {
    const project = commentsToBcf(threads, { aspect: 16 / 9, projectName: 'Tower', snapshots: new Map([['c-1', tinyPng(1600, 900)]]) });
    const [t1, t2] = project.topics;
    expect(t1).toMatchObject({
      guid: bcfGuidFor('c-1'),
      title: 'Beam too low',
      status: 'Open',
      author: 'Ada.Lovelace@users.parametricos.invalid',
      creationDate: '2026-03-01T10:00:00.000Z',
      description: 'The beam hits the duct.',
    });
    expect(t1!.comments).toEqual([
      { guid: bcfGuidFor('r-c-1'), date: '2026-03-01T11:00:00.000Z', author: 'Bob.Builder@users.parametricos.invalid', text: 'Will move it.', viewpointGuid: t1!.viewpoints[0]!.guid },
    ]);
    const vp = t1!.viewpoints[0]!;
    expect(vp.camera).toMatchObject({ kind: 'perspective', position: [10, 5, 10] });
    if (vp.camera?.kind !== 'perspective') throw new Error('perspective expected');
    expect(vp.camera.fieldOfView).toBeCloseTo(horizontalFov(50, 16 / 9), 10);
    expect(vp.lines[0]).toEqual({ start: [1, 2, 3], end: [1, 2, 3] }); // the pin as a point
    expect(vp.lines).toHaveLength(1 + 1 + 2 + 4);
    expect(vp.snapshotPng).toEqual(tinyPng(1600, 900));
    expect(t2).toMatchObject({ status: 'Closed', title: 'Second line' });
    expect(t2!.viewpoints[0]!.camera).toMatchObject({ kind: 'orthogonal', viewToWorldScale: 12 });
  });

  it('round trip through a .bcfzip: same topics, statuses, views, planes, measurements and pin', () => {
    const bytes = exportBcf(commentsToBcf(threads, { aspect: 1, snapshots: new Map([['c-1', tinyPng(200, 200)]]) }));
    const { threads: back, problems } = bcfToComments(importBcf(bytes), { aspect: 2, defaultFov: 50, importer: ada });
    expect(problems).toEqual([]);
    expect(back.map((t) => `${t.request.title}: ${t.status}`).sort()).toEqual(['Beam too low: open', 'Second line: resolved']);
    const first = back.find((t) => t.topicGuid === bcfGuidFor('c-1'))!;
    // Every request passes the REST schema as it is.
    for (const t of back) expect(CreateCommentRequest.safeParse(t.request).success).toBe(true);
    const view = first.request.view;
    expect(view.projection).toBe('Perspective');
    expect(view.position).toEqual([10, 5, 10]);
    // fov 50 at aspect 1 (the snapshot's, not the importer's 2) is within 45..60, so it is exact.
    expect(view.fov).toBeCloseTo(50, 9);
    // The up made perpendicular to the view direction (10, 5, 10) -> (0, 1, 0).
    const d = [-10, -4, -10].map((v) => v / Math.hypot(10, 4, 10));
    const u = [0, 1, 0].map((v, i) => v - d[i]! * d[1]!);
    view.up.forEach((v, i) => expect(v).toBeCloseTo(u[i]! / Math.hypot(...u), 12));
    expect(view.sections).toHaveLength(1);
    expect(view.sections[0]!.normal.map((v) => v + 0)).toEqual([0, -1, 0]);
    expect(view.sections[0]!.constant).toBeCloseTo(2, 12);
    expect(view.measurements).toEqual(thread('x').view.measurements);
    expect(first.request.anchor.position).toEqual([1, 2, 3]);
    // The orbit target is on the view direction, at the pin's depth.
    const dir = first.request.anchor.direction;
    const toTarget = view.target.map((v, i) => v - view.position[i]!);
    toTarget.forEach((v, i) => expect(v / Math.hypot(...toTarget)).toBeCloseTo(dir[i]!, 9));
    expect(first.request.text).toBe('The beam hits the duct.'); // the importer wrote it: no note
    expect(first.replies).toEqual(['Will move it.\n\n(BCF: Bob Builder, 2026-03-01 11:00 UTC)']);
    expect(first.snapshotPng).toEqual(tinyPng(200, 200));
    const second = back.find((t) => t.topicGuid === bcfGuidFor('c-2'))!;
    expect(second.request.view).toMatchObject({ projection: 'Orthographic', orthoHeight: 12, fov: 50 });
  });

  it("a field of view outside BCF 2.1's 45..60 horizontal degrees is lost (README, BCF); one inside round-trips", () => {
    const roundTrip = (fov: number, aspect: number) => {
      const bytes = exportBcf(commentsToBcf([thread('f', { view: { ...thread('f').view, fov } })], { aspect }));
      return bcfToComments(importBcf(bytes), { aspect, defaultFov: 45, importer: ada }).threads[0]!.request.view.fov;
    };
    // The viewer's default 45 degrees vertical in a 16:9 view is about 73 degrees horizontal: it comes back at 60 (36 vertical).
    expect(horizontalFov(45, 16 / 9)).toBeCloseTo(72.7, 1);
    expect(roundTrip(45, 16 / 9)).toBeCloseTo(2 * Math.atan(Math.tan(Math.PI / 6) / (16 / 9)) * (180 / Math.PI), 6);
    expect(roundTrip(45, 16 / 9)).toBeCloseTo(36, 0);
    // A narrow view comes back at 45 degrees horizontal.
    expect(horizontalFov(roundTrip(10, 1), 1)).toBeCloseTo(45, 6);
    // Within the range: exact.
    expect(roundTrip(30, 16 / 9)).toBeCloseTo(30, 9);
  });

  it('a topic without a camera is named and not imported; a topic without a pin is placed where locate says', () => {
    const { threads: out, problems } = bcfToComments(
      {
        topics: [
          { guid: bcfGuidFor('a'), title: 'No view', status: '', author: 'x@y', creationDate: '2026-01-01T00:00:00.000Z', comments: [], viewpoints: [] },
          {
            guid: bcfGuidFor('b'),
            title: 'Foreign',
            status: 'Resolved',
            author: 'jane.doe@example.com',
            creationDate: '2026-01-01T00:00:00.000Z',
            comments: [{ guid: bcfGuidFor('c'), date: '2026-01-01T00:00:00.000Z', author: 'jane.doe@example.com', text: 'First words' }],
            viewpoints: [{ guid: bcfGuidFor('v'), camera: { kind: 'perspective', position: [0, 0, 0], direction: [0, 0, -2], up: [0, 1, 0], fieldOfView: 60 }, clippingPlanes: [], lines: [] }],
          },
        ],
      },
      { aspect: 1, defaultFov: 50, locate: () => [0, 0, -4] },
    );
    expect(problems).toEqual([`Topic "No view" (${bcfGuidFor('a')}) has no viewpoint with a camera, so it has no place in the scene; it was not imported.`]);
    expect(out).toHaveLength(1);
    expect(out[0]!.status).toBe('resolved');
    expect(out[0]!.request.anchor.position).toEqual([0, 0, -4]);
    expect(out[0]!.request.view.target).toEqual([0, 0, -4]);
    expect(out[0]!.request.text).toBe('First words\n\n(BCF: jane doe, 2026-01-01 00:00 UTC)');
    expect(out[0]!.replies).toEqual([]);
    const far = bcfToComments({ topics: [{ guid: bcfGuidFor('b'), title: 'T', status: '', author: '', creationDate: '2026-01-01T00:00:00.000Z', comments: [], viewpoints: [{ guid: bcfGuidFor('v'), camera: { kind: 'perspective', position: [0, 0, 0], direction: [1, 0, 0], up: [0, 1, 0], fieldOfView: 60 }, clippingPlanes: [], lines: [] }] }] }, { aspect: 1, defaultFov: 50 });
    expect(far.threads[0]!.request.anchor.position).toEqual([BCF_DEFAULT_TARGET_DISTANCE, 0, 0]);
    expect(far.threads[0]!.request.text).toBe('T\n\n(BCF: unknown author, 2026-01-01 00:00 UTC)');
  });

  it('maps statuses of other programs', () => {
    expect(['Closed', 'resolved', ' Done ', 'Fixed'].map(bcfStatusToComment)).toEqual(['resolved', 'resolved', 'resolved', 'resolved']);
    expect(['Open', 'In Progress', 'ReOpened', ''].map(bcfStatusToComment)).toEqual(['open', 'open', 'open', 'open']);
  });
});
