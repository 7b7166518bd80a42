import type { CommentsSession } from '../api/comments';
import { exportBcf, importBcf } from '../protocol/bcf/archive';
import { bcfGuidFor, bcfToComments, commentsToBcf } from '../protocol/bcf/comments';
import type { CommentThread, CommentView } from '../protocol/comments';

/**
 * The comments panel's BCF export and import (issue 16, item 4), a chunk of its own (the XML
 * parser comes with it) fetched when a person clicks Export or Import.
 */

/** Most topics exported with a snapshot: each one is a view opened and drawn, a moment per topic. */
export const MAX_BCF_SNAPSHOTS = 50;
/** Snapshot width, pixels (the height keeps the view's aspect). */
export const BCF_SNAPSHOT_WIDTH = 640;

/** What the export needs of the viewer: its views and its pictures. */
export interface BcfViewAccess {
  captureView(): CommentView;
  openView(view: CommentView, transition?: boolean): Promise<void>;
  /** One frame through the pipeline (section planes and measurements put in place). */
  nextFrame(): Promise<void>;
  screenshot(options: { width: number; height: number; format: 'png' }): Promise<Blob>;
}

export interface BcfExportResult {
  bytes: Uint8Array;
  topics: number;
  snapshots: number;
  /** MAX_BCF_SNAPSHOTS: above it, no topic gets a snapshot. */
  snapshotLimit: number;
}

/**
 * The scene's threads as a .bcfzip: the list fetched again (what is stored, not what the page
 * last saw); a snapshot of each thread's view for up to MAX_BCF_SNAPSHOTS threads (the person's
 * own view is put back afterwards, also when a picture fails).
 */
export async function exportSceneBcf(
  session: CommentsSession,
  views: BcfViewAccess | null,
  options: { aspect: number; projectName: string; projectId?: string },
): Promise<BcfExportResult> {
  await session.refresh();
  const threads = session.snapshot.threads;
  const snapshots = new Map<string, Uint8Array>();
  if (views && threads.length > 0 && threads.length <= MAX_BCF_SNAPSHOTS) {
    const height = Math.max(1, Math.round(BCF_SNAPSHOT_WIDTH / options.aspect));
    const own = views.captureView();
    try {
      for (const thread of threads) {
        await views.openView(thread.view, false);
        await views.nextFrame();
        const blob = await views.screenshot({ width: BCF_SNAPSHOT_WIDTH, height, format: 'png' });
        snapshots.set(thread._id, new Uint8Array(await blob.arrayBuffer()));
      }
    } finally {
      await views.openView(own, false);
    }
  }
  const project = commentsToBcf(threads, { aspect: options.aspect, projectName: options.projectName, ...(options.projectId ? { projectId: options.projectId } : {}), snapshots });
  return { bytes: exportBcf(project), topics: threads.length, snapshots: snapshots.size, snapshotLimit: MAX_BCF_SNAPSHOTS };
}

export interface BcfImportReport {
  /** Topics in the file (readable ones). */
  topics: number;
  imported: CommentThread[];
  /** Topics already in the scene (exported from it: same GUID; or imported before: same title, text and point): not imported again. */
  skipped: string[];
  /** What the file could not give (broken topics, topics without a camera, too many comments). */
  problems: string[];
  /** Topics that failed to import, each with the reason; none of them is left half made. */
  failures: string[];
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));
const isRefusal = (error: unknown) => typeof error === 'object' && error !== null && [401, 403].includes((error as { status?: number }).status ?? 0);

/**
 * Imports a .bcfzip into the scene's comments: each topic is created (POST), resolved when closed
 * (PATCH) and given its replies (POST); a topic whose later step fails is deleted again, so the
 * scene never keeps half a topic, and the failure is reported. A refusal (not signed in, comments
 * turned off) stops the import: the rest would be refused too. A file that cannot be read at all
 * throws (BcfImportError, with the reason).
 */
export async function importSceneBcf(
  session: CommentsSession,
  bytes: Uint8Array,
  options: { aspect: number; defaultFov: number },
): Promise<BcfImportReport> {
  const project = importBcf(bytes);
  // Oldest first, as they were written (a zip's order is no order).
  project.topics.sort((a, b) => a.creationDate.localeCompare(b.creationDate));
  if (!session.snapshot.loaded) await session.refresh();
  const importer = await session.me().catch(() => null);
  const { threads, problems } = bcfToComments(project, { aspect: options.aspect, defaultFov: options.defaultFov, ...(importer ? { importer } : {}) });
  const report: BcfImportReport = { topics: project.topics.length, imported: [], skipped: [], problems: [...(project.problems ?? []), ...problems], failures: [] };
  // Already here: a thread exported from this scene (its GUID), or one imported before (same
  // title, text and pinned point).
  const sameAs = (t: { title?: string; text: string; position: readonly number[] }) => `${t.title ?? ''}\n${t.text}\n${t.position.map((v) => v.toFixed(5)).join(',')}`;
  const present = new Set(session.snapshot.threads.map((t) => bcfGuidFor(t._id)));
  const seen = new Set(session.snapshot.threads.map((t) => sameAs({ title: t.title, text: t.text, position: t.anchor.position })));
  for (let i = 0; i < threads.length; i++) {
    const topic = threads[i]!;
    const name = `"${topic.request.title || topic.topicGuid}"`;
    if (present.has(topic.topicGuid) || seen.has(sameAs({ title: topic.request.title, text: topic.request.text, position: topic.request.anchor.position }))) {
      report.skipped.push(`${name} is already in this scene (same BCF topic): not imported again.`);
      continue;
    }
    let created: CommentThread | null = null;
    try {
      created = await session.create(topic.request);
      if (topic.status === 'resolved') created = await session.update(created._id, { status: 'resolved' });
      for (const text of topic.replies) created = await session.reply(created._id, text);
      report.imported.push(created);
    } catch (error) {
      let failure = `${name}: ${reason(error)}`;
      if (created) {
        try {
          await session.remove(created._id);
          failure += ' (the part already made was removed)';
        } catch (removal) {
          failure += ` (the part already made could not be removed: ${reason(removal)}; delete it by hand)`;
        }
      }
      report.failures.push(failure);
      if (isRefusal(error)) {
        const rest = threads.length - i - 1;
        if (rest > 0) report.failures.push(`The other ${rest} topic(s) were not tried: the service refused the import.`);
        break;
      }
    }
  }
  return report;
}

/** The download's file name: the scene's name without characters file systems refuse. */
export function bcfFileName(sceneName: string): string {
  // eslint-disable-next-line no-control-regex -- C0 controls are among the characters refused
  const safe = sceneName.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_').trim();
  return `${safe || 'comments'}.bcfzip`;
}
