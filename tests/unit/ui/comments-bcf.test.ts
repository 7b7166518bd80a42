import { describe, expect, it } from 'vitest';
import { CommentsError, createCommentsSession, type CommentsClient } from '../../../src/api/comments';
import { importBcf } from '../../../src/protocol/bcf/archive';
import { BcfImportError } from '../../../src/protocol/bcf/model';
import type { CommentThread, CommentView } from '../../../src/protocol/comments';
import { bcfFileName, exportSceneBcf, importSceneBcf, MAX_BCF_SNAPSHOTS, type BcfViewAccess } from '../../../src/ui/comments-bcf';
import { tinyPng } from '../../support/bcf-fixtures';

const view = (x: number): CommentView => ({
  projection: 'Perspective',
  position: [x, 5, 10],
  target: [0, 1, 0],
  up: [0, 1, 0],
  fov: 50,
  orthoHeight: 8,
  sections: [{ normal: [0, -1, 0], constant: 2 }],
  measurements: [],
});
const ada = { _id: 'u1', firstName: 'Ada', lastName: 'Lovelace' };

/** A model service in memory: ids c1, c2, ...; `fail` makes one call throw. */
function memoryClient(fail?: (call: string, count: number) => Error | null): CommentsClient & { store: Map<string, CommentThread> } {
  const store = new Map<string, CommentThread>();
  let n = 0;
  let calls = 0;
  const check = (call: string) => {
    const error = fail?.(call, ++calls);
    if (error) throw error;
  };
  const now = () => new Date(Date.UTC(2024, 0, 1, 0, 0, n)).toISOString();
  return {
    store,
    list: async () => ({ comments: [...store.values()], commentsEnabled: true, mayComment: true, mayModerate: true, userId: null, ignored: 0 }),
    get: async (id) => store.get(id) ?? null,
    create: async (body) => {
      check('create');
      const id = `c${++n}`;
      const t: CommentThread = {
        _id: id,
        sceneId: 's',
        anchor: { ...body.anchor, _id: `a${n}` },
        view: body.view,
        author: ada,
        title: body.title ?? '',
        text: body.text,
        status: 'open',
        createdAt: now(),
        updatedAt: now(),
        replies: [],
      };
      store.set(id, t);
      return t;
    },
    update: async (id, body) => {
      check('update');
      const t = { ...store.get(id)!, ...body } as CommentThread;
      store.set(id, t);
      return t;
    },
    remove: async (id) => {
      check('remove');
      store.delete(id);
    },
    reply: async (id, text) => {
      check('reply');
      const t = store.get(id)!;
      const next = { ...t, replies: [...t.replies, { _id: `r${++n}`, author: ada, text, createdAt: now(), updatedAt: now() }] };
      store.set(id, next);
      return next;
    },
    updateReply: async () => {
      throw new Error('not used');
    },
    removeReply: async () => {
      throw new Error('not used');
    },
    me: async () => ({ firstName: 'Ada', lastName: 'Lovelace' }),
  };
}

async function sceneWithThreads() {
  const client = memoryClient();
  const session = createCommentsSession(client, () => undefined);
  const a = await session.create({ anchor: { position: [0.4, 1.2, 0.5], target: [0, 1, 0], direction: [0, 0, -1] }, view: view(1), text: 'Scratched paint', title: 'Paint' });
  await session.reply(a._id, 'Fixed on Monday');
  await session.update(a._id, { status: 'resolved' });
  await session.create({ anchor: { position: [-0.5, 2, 0.5], target: [0, 1, 0], direction: [0, 0, -1] }, view: view(2), text: 'Lid height?', title: 'Lid' });
  return { client, session };
}

describe('BCF export and import of the scene comments', () => {
  it('round trip: the topics come back with titles, statuses, replies and views; snapshots from the viewer', async () => {
    const { session } = await sceneWithThreads();
    const opened: CommentView[] = [];
    const own = view(9);
    const views: BcfViewAccess = {
      captureView: () => own,
      openView: async (v) => void opened.push(v),
      nextFrame: async () => undefined,
      screenshot: async () => new Blob([tinyPng(4, 3) as Uint8Array<ArrayBuffer>]),
    };
    const out = await exportSceneBcf(session, views, { aspect: 4 / 3, projectName: 'Box' });
    expect(out).toMatchObject({ topics: 2, snapshots: 2 });
    // Each thread's view was opened for its picture, then the person's own view put back.
    expect(opened.map((v) => v.position[0])).toEqual([1, 2, 9]);
    const project = importBcf(out.bytes);
    expect(project.projectName).toBe('Box');
    expect(project.topics.map((t) => [t.title, t.status]).sort()).toEqual([
      ['Lid', 'Open'],
      ['Paint', 'Closed'],
    ]);
    expect(project.topics.every((t) => t.viewpoints[0]?.snapshotPng !== undefined)).toBe(true);

    const target = memoryClient();
    const other = createCommentsSession(target, () => undefined);
    const report = await importSceneBcf(other, out.bytes, { aspect: 4 / 3, defaultFov: 45 });
    expect(report).toMatchObject({ topics: 2, skipped: [], failures: [] });
    const back = [...target.store.values()];
    expect(back.map((t) => [t.title, t.status, t.replies.map((r) => r.text)])).toEqual([
      ['Paint', 'resolved', ['Fixed on Monday']],
      ['Lid', 'open', []],
    ]);
    // The importer wrote them: no attribution note; the views' cameras, pins and planes are kept.
    expect(back[0]!.text).toBe('Scratched paint');
    for (const [i, t] of back.entries()) {
      for (let k = 0; k < 3; k++) expect(t.view.position[k]).toBeCloseTo(view(i + 1).position[k], 6);
      expect(t.view.sections).toHaveLength(1);
      expect(t.view.sections[0]!.constant).toBeCloseTo(2, 6);
    }
    expect(back[1]!.anchor.position).toEqual([-0.5, 2, 0.5]);
    expect(other.snapshot.threads).toHaveLength(2);
  });

  it('a topic already in the scene (same GUID) is not imported twice', async () => {
    const { client, session } = await sceneWithThreads();
    const out = await exportSceneBcf(session, null, { aspect: 1, projectName: 'Box' });
    expect(out.snapshots).toBe(0);
    const report = await importSceneBcf(session, out.bytes, { aspect: 1, defaultFov: 45 });
    expect(report.imported).toHaveLength(0);
    expect(report.skipped).toHaveLength(2);
    expect(report.skipped[0]).toContain('"Paint" is already in this scene');
    expect(client.store.size).toBe(2);
  });

  it('more threads than MAX_BCF_SNAPSHOTS: exported without snapshots, the view never touched', async () => {
    const client = memoryClient();
    const session = createCommentsSession(client, () => undefined);
    for (let i = 0; i <= MAX_BCF_SNAPSHOTS; i++) await session.create({ anchor: { position: [i, 0, 0], target: [0, 0, 0], direction: [0, 0, -1] }, view: view(i), text: `t${i}` });
    let touched = 0;
    const views: BcfViewAccess = {
      captureView: () => view(0),
      openView: async () => void touched++,
      nextFrame: async () => undefined,
      screenshot: async () => new Blob([]),
    };
    const out = await exportSceneBcf(session, views, { aspect: 1, projectName: 'Many' });
    expect(out).toMatchObject({ topics: MAX_BCF_SNAPSHOTS + 1, snapshots: 0 });
    expect(touched).toBe(0);
  });

  it('a failed reply removes the half-made topic and says so; the other topics still come in', async () => {
    const { session } = await sceneWithThreads();
    const out = await exportSceneBcf(session, null, { aspect: 1, projectName: 'Box' });
    const target = memoryClient((call) => (call === 'reply' ? new CommentsError(500, 'disk full') : null));
    const other = createCommentsSession(target, () => undefined);
    const report = await importSceneBcf(other, out.bytes, { aspect: 1, defaultFov: 45 });
    expect(report.imported.map((t) => t.title)).toEqual(['Lid']);
    expect(report.failures).toEqual(['"Paint": disk full (the part already made was removed)']);
    expect([...target.store.values()].map((t) => t.title)).toEqual(['Lid']);
  });

  it('a removal that fails too is reported, naming what to delete by hand', async () => {
    const { session } = await sceneWithThreads();
    const out = await exportSceneBcf(session, null, { aspect: 1, projectName: 'Box' });
    const target = memoryClient((call) => (call === 'update' ? new CommentsError(500, 'busy') : call === 'remove' ? new CommentsError(0, 'offline') : null));
    const report = await importSceneBcf(createCommentsSession(target, () => undefined), out.bytes, { aspect: 1, defaultFov: 45 });
    expect(report.failures[0]).toBe('"Paint": busy (the part already made could not be removed: offline; delete it by hand)');
  });

  it('a refusal stops the import and says how many topics were not tried', async () => {
    const { session } = await sceneWithThreads();
    const out = await exportSceneBcf(session, null, { aspect: 1, projectName: 'Box' });
    const target = memoryClient((call) => (call === 'create' ? new CommentsError(403, "Comments are turned off for scene 's' by its owner") : null));
    const report = await importSceneBcf(createCommentsSession(target, () => undefined), out.bytes, { aspect: 1, defaultFov: 45 });
    expect(report.failures).toEqual([`"Paint": Comments are turned off for scene 's' by its owner`, 'The other 1 topic(s) were not tried: the service refused the import.']);
    expect(target.store.size).toBe(0);
  });

  it('a file that is not BCF is refused with the reason, nothing created', async () => {
    const target = memoryClient();
    await expect(importSceneBcf(createCommentsSession(target, () => undefined), new TextEncoder().encode('hello'), { aspect: 1, defaultFov: 45 })).rejects.toBeInstanceOf(BcfImportError);
    expect(target.store.size).toBe(0);
  });

  it('names the download after the scene, without characters file systems refuse', () => {
    expect(bcfFileName('Warehouse A')).toBe('Warehouse A.bcfzip');
    expect(bcfFileName('a/b:c?')).toBe('a_b_c_.bcfzip');
    expect(bcfFileName('  ')).toBe('comments.bcfzip');
  });
});

describe('BCF import twice into another scene', () => {
  it('the second import of the same file makes nothing twice', async () => {
    const { session } = await sceneWithThreads();
    const out = await exportSceneBcf(session, null, { aspect: 1, projectName: 'Box' });
    const target = memoryClient();
    const other = createCommentsSession(target, () => undefined);
    expect((await importSceneBcf(other, out.bytes, { aspect: 1, defaultFov: 45 })).imported).toHaveLength(2);
    const again = await importSceneBcf(other, out.bytes, { aspect: 1, defaultFov: 45 });
    expect(again.imported).toHaveLength(0);
    expect(again.skipped).toHaveLength(2);
    expect(target.store.size).toBe(2);
  });
});
