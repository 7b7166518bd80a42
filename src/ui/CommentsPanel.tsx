import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { CommentsSession, CommentsSnapshot } from '../api/comments';
import { authorName, type CommentThread, type CommentView } from '../protocol/comments';
import type { CommentPlaceEvent, ViewerComments } from '../viewer/comments';
import { bindingsFor } from '../viewer/input/keymap';
import type { Viewer } from '../viewer/viewer';

/**
 * The comments panel (issue 16): the comment tool's button, the composer a click of the tool opens,
 * the list of threads (open / resolved, author, time) and the open thread with its replies. A click
 * on an entry or a pin flies to the comment's view. Talks to the viewer's interface and the
 * comments session only. Its parts below: the open thread (ThreadView, with EditForm) and the BCF
 * export and import (useBcfTransfer, BcfTools).
 */
export function CommentsPanel({ viewer, comments, session, sceneName }: { viewer: Viewer; comments: ViewerComments; session: CommentsSession; sceneName: string }) {
  // The session's snapshot is immutable (a new object for each change): read as an external store,
  // a change between this render and the subscription is not missed.
  const snap: CommentsSnapshot = useSyncExternalStore(session.subscribe, () => session.snapshot);
  const [open, setOpen] = useState(false);
  const [toolOn, setToolOn] = useState(comments.toolActive);
  const [filter, setFilter] = useState<'open' | 'resolved'>('open');
  const [draft, setDraft] = useState<CommentPlaceEvent | null>(null);
  const [text, setText] = useState('');
  const [current, setCurrent] = useState<string | null>(null);
  const [reply, setReply] = useState('');
  const [busy, setBusy] = useState(false);
  /** The thread's or a reply's text being edited in place (its author's own), with the last failure. */
  const [editing, setEditing] = useState<Editing | null>(null);
  const bcf = useBcfTransfer(viewer, comments, session, sceneName, () => setFilter('open'));

  useEffect(() => {
    const offs = [
      viewer.events.on('comment-tool', ({ active }) => setToolOn(active)),
      viewer.events.on('comment-place', (event) => {
        setDraft(event);
        setText('');
        setOpen(true);
      }),
      viewer.events.on('comment-pin', ({ id }) => {
        setOpen(true);
        show(id);
      }),
    ];
    return () => offs.forEach((off) => off());
    // Once per viewer: `show` (a new function each render) is left out of the dependencies on purpose.
  }, [viewer]);

  const show = (id: string) => {
    setCurrent(id);
    setEditing(null);
    comments.select(id);
    const thread = session.find(id);
    if (thread) {
      setFilter(thread.status);
      void comments.openView(thread.view, true);
    }
  };

  const act = async (work: () => Promise<unknown>, onError?: (message: string) => void) => {
    setBusy(true);
    try {
      await work();
    } catch (error) {
      // The session keeps the error text; the panel shows it (and the edit form, its own).
      onError?.(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };

  /** Saves the text being edited; a failure keeps the form open with the text and says why. */
  const saveEdit = () => {
    const edit = editing;
    if (!edit) return;
    const text = edit.text.trim();
    if (!text) {
      setEditing({ ...edit, error: 'The text must not be empty: write something, or press Escape to keep the old text.' });
      return;
    }
    const thread = session.find(edit.threadId);
    const before = edit.replyId ? thread?.replies.find((r) => r._id === edit.replyId)?.text : thread?.text;
    if (text === before) {
      setEditing(null);
      return;
    }
    void act(
      async () => {
        if (edit.replyId) await session.updateReply(edit.threadId, edit.replyId, text);
        else await session.update(edit.threadId, { text });
        setEditing(null);
      },
      (message) => setEditing((e) => (e ? { ...e, error: message } : e)),
    );
  };
  const post = () =>
    act(async () => {
      if (!draft || !text.trim()) return;
      const thread = await session.create({ anchor: draft.anchor, view: draft.view, text });
      setDraft(null);
      setText('');
      comments.setTool(false);
      setCurrent(thread._id);
      comments.select(thread._id);
      setFilter('open');
    });

  const thread: CommentThread | undefined = current ? snap.threads.find((t) => t._id === current) : undefined;
  const shown = snap.threads.filter((t) => t.status === filter);

  return (
    <div className="comments-panel" data-testid="comments-panel">
      <div className="comments-bar">
        <button
          type="button"
          className={toolOn ? 'active' : ''}
          aria-pressed={toolOn}
          data-testid="comment-tool"
          disabled={!snap.mayComment}
          title={snap.mayComment ? 'Comment: click a surface to pin a comment there' : snap.commentsEnabled ? 'Sign in to comment' : 'The owner turned comments off'}
          onClick={() => comments.setTool(!toolOn)}
        >
          Comment
        </button>
        <button type="button" aria-expanded={open} data-testid="comments-toggle" onClick={() => setOpen(!open)}>
          Comments ({snap.threads.filter((t) => t.status === 'open').length})
        </button>
      </div>
      {snap.error && (
        <p className="comments-error" role="alert" data-testid="comments-error">
          {snap.error}
        </p>
      )}
      {draft && (
        <form
          className="comment-composer"
          data-testid="comment-composer"
          onSubmit={(e) => {
            e.preventDefault();
            void post();
          }}
        >
          <textarea
            autoFocus
            value={text}
            placeholder="Write a comment"
            aria-label="Comment text"
            data-testid="comment-text"
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => submitKeys(e, () => void post(), () => setDraft(null))}
          />
          <div className="comment-actions">
            <button type="submit" disabled={busy || !text.trim()} data-testid="comment-post">
              Post
            </button>
            <button type="button" onClick={() => setDraft(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {open && (
        <div className="comments-list-panel">
          <div className="comments-filter" role="tablist">
            {(['open', 'resolved'] as const).map((f) => (
              <button key={f} type="button" role="tab" aria-selected={filter === f} data-testid={`comments-filter-${f}`} onClick={() => setFilter(f)}>
                {f === 'open' ? 'Open' : 'Resolved'} ({snap.threads.filter((t) => t.status === f).length})
              </button>
            ))}
          </div>
          <BcfTools transfer={bcf} mayComment={snap.mayComment} />
          <ul className="comments-list" data-testid="comments-list">
            {shown.map((t) => (
              <li key={t._id} className={t._id === current ? 'selected' : ''}>
                <button type="button" data-testid="comment-entry" data-comment-id={t._id} onClick={() => show(t._id)}>
                  <span className="comment-author">{authorName(t.author)}</span>
                  <span className="comment-time">{time(t.createdAt)}</span>
                  <span className="comment-excerpt">{t.title || t.text}</span>
                  {t.replies.length > 0 && <span className="comment-replies">{t.replies.length === 1 ? '1 reply' : `${t.replies.length} replies`}</span>}
                </button>
              </li>
            ))}
            {shown.length === 0 && <li className="comments-empty">{snap.loaded ? `No ${filter} comments.` : 'Loading…'}</li>}
          </ul>
          {thread && (
            <ThreadView
              thread={thread}
              snap={snap}
              session={session}
              comments={comments}
              busy={busy}
              act={act}
              editing={editing}
              setEditing={setEditing}
              saveEdit={saveEdit}
              reply={reply}
              setReply={setReply}
              onDeleted={() => {
                setCurrent(null);
                setEditing(null);
                comments.select(null);
              }}
            />
          )}
        </div>
      )}
    </div>
  );
}

type Editing = { threadId: string; replyId: string | null; text: string; error: string | null };

/** Enter-to-send and Escape of the comment key map (comment-submit, comment-cancel). */
function submitKeys(event: React.KeyboardEvent, submit: () => void, cancel: () => void) {
  const actions = bindingsFor(event.nativeEvent).map((b) => b.action);
  if (actions.includes('comment-submit')) {
    event.preventDefault();
    submit();
  } else if (actions.includes('comment-cancel')) {
    event.preventDefault();
    cancel();
  }
}

const time = (iso: string) => new Date(iso).toLocaleString();

/** The thread's or a reply's text edited in place (its author's own), with the last failure. */
function EditForm({ editing, setEditing, busy, onSave }: { editing: Editing; setEditing: (editing: Editing | null) => void; busy: boolean; onSave: () => void }) {
  return (
    <form
      className="comment-edit"
      data-testid="comment-edit-form"
      onSubmit={(e) => {
        e.preventDefault();
        onSave();
      }}
    >
      <textarea
        autoFocus
        value={editing.text}
        aria-label="Edit the text"
        data-testid="comment-edit-text"
        onChange={(e) => setEditing({ ...editing, text: e.target.value, error: null })}
        onKeyDown={(e) => submitKeys(e, onSave, () => setEditing(null))}
      />
      {editing.error && (
        <p className="comments-error" role="alert" data-testid="comment-edit-error">
          {editing.error}
        </p>
      )}
      <div className="comment-actions">
        <button type="submit" disabled={busy} data-testid="comment-edit-save">
          Save
        </button>
        <button type="button" data-testid="comment-edit-cancel" onClick={() => setEditing(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

interface ThreadViewProps {
  thread: CommentThread;
  snap: CommentsSnapshot;
  session: CommentsSession;
  comments: ViewerComments;
  busy: boolean;
  act: (work: () => Promise<unknown>) => Promise<void>;
  editing: Editing | null;
  setEditing: (editing: Editing | null) => void;
  saveEdit: () => void;
  reply: string;
  setReply: (text: string) => void;
  onDeleted: () => void;
}

/** The open thread: its text, the replies, the reply form and the thread's actions. */
function ThreadView({ thread, snap, session, comments, busy, act, editing, setEditing, saveEdit, reply, setReply, onDeleted }: ThreadViewProps) {
  const own = (author: { _id: string }) => snap.userId !== null && author._id === snap.userId;
  return (
    <div className="comment-thread" data-testid="comment-thread">
      <div className="comment-head">
        <strong>{authorName(thread.author)}</strong> <span className="comment-time">{time(thread.createdAt)}</span>
      </div>
      {editing && editing.threadId === thread._id && editing.replyId === null ? (
        <EditForm editing={editing} setEditing={setEditing} busy={busy} onSave={saveEdit} />
      ) : (
        <p className="comment-body" data-testid="comment-body">
          {thread.text}
        </p>
      )}
      <ul className="comment-reply-list">
        {thread.replies.map((r) => (
          <li key={r._id} data-testid="comment-reply" data-reply-id={r._id}>
            <strong>{authorName(r.author)}</strong> <span className="comment-time">{time(r.createdAt)}</span>
            {editing && editing.threadId === thread._id && editing.replyId === r._id ? <EditForm editing={editing} setEditing={setEditing} busy={busy} onSave={saveEdit} /> : <p data-testid="reply-body">{r.text}</p>}
            <div className="comment-actions">
              {own(r.author) && snap.commentsEnabled && !(editing && editing.replyId === r._id) && (
                <button type="button" data-testid="reply-edit" disabled={busy} onClick={() => setEditing({ threadId: thread._id, replyId: r._id, text: r.text, error: null })}>
                  Edit
                </button>
              )}
              {(own(r.author) || snap.mayModerate) && (
                <button type="button" data-testid="reply-delete" disabled={busy} onClick={() => void act(() => session.removeReply(thread._id, r._id))}>
                  Delete reply
                </button>
              )}
            </div>
          </li>
        ))}
      </ul>
      {snap.mayComment && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void act(async () => {
              if (!reply.trim()) return;
              await session.reply(thread._id, reply);
              setReply('');
            });
          }}
        >
          <textarea value={reply} placeholder="Reply" aria-label="Reply text" data-testid="reply-text" onChange={(e) => setReply(e.target.value)} />
          <button type="submit" disabled={busy || !reply.trim()} data-testid="reply-post">
            Reply
          </button>
        </form>
      )}
      <div className="comment-actions">
        <button
          type="button"
          data-testid="comment-resolve"
          disabled={busy}
          onClick={() => void act(() => session.update(thread._id, { status: thread.status === 'open' ? 'resolved' : 'open' }))}
        >
          {thread.status === 'open' ? 'Resolve' : 'Reopen'}
        </button>
        <button type="button" data-testid="comment-goto" onClick={() => void comments.openView(thread.view, true)}>
          Go to view
        </button>
        {own(thread.author) && snap.commentsEnabled && !(editing && editing.threadId === thread._id && editing.replyId === null) && (
          <button type="button" data-testid="comment-edit" disabled={busy} onClick={() => setEditing({ threadId: thread._id, replyId: null, text: thread.text, error: null })}>
            Edit
          </button>
        )}
        {(own(thread.author) || snap.mayModerate) && (
          <button
            type="button"
            data-testid="comment-delete"
            disabled={busy}
            onClick={() =>
              void act(async () => {
                await session.remove(thread._id);
                onDeleted();
              })
            }
          >
            Delete
          </button>
        )}
      </div>
    </div>
  );
}

type BcfReport = { busy: boolean; lines: string[]; failed: boolean };

/** BCF export and import of the scene's comments, with the report of the last one (kept while the list is closed). The module (and its XML parser) is fetched on the first use. */
function useBcfTransfer(viewer: Viewer, comments: ViewerComments, session: CommentsSession, sceneName: string, onImported: () => void) {
  const [bcf, setBcf] = useState<BcfReport | null>(null);

  const aspect = () => {
    const canvas = viewer.context.renderer.domElement;
    return canvas.clientWidth > 0 && canvas.clientHeight > 0 ? canvas.clientWidth / canvas.clientHeight : 16 / 9;
  };

  const exportBcf = async () => {
    setBcf({ busy: true, lines: ['Exporting…'], failed: false });
    try {
      const { exportSceneBcf, bcfFileName } = await import('./comments-bcf');
      const views = {
        captureView: () => comments.captureView(),
        openView: (view: CommentView, transition?: boolean) => comments.openView(view, transition),
        nextFrame: () => viewer.nextFrame(),
        screenshot: (options: { width: number; height: number; format: 'png' }) => viewer.screenshot(options),
      };
      const result = await exportSceneBcf(session, views, { aspect: aspect(), projectName: sceneName || 'Comments' });
      const url = URL.createObjectURL(new Blob([result.bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = bcfFileName(sceneName);
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      const pictures = result.snapshots === result.topics ? 'with a snapshot each' : `${result.snapshots} with a snapshot (snapshots are taken for up to ${result.snapshotLimit} topics)`;
      setBcf({ busy: false, lines: [`Exported ${result.topics} topic(s) ${result.topics ? pictures : ''}.`.replace(' .', '.')], failed: false });
    } catch (error) {
      setBcf({ busy: false, lines: [`The BCF file could not be made: ${error instanceof Error ? error.message : String(error)}`], failed: true });
    }
  };

  const importBcf = async (file: File) => {
    setBcf({ busy: true, lines: [`Importing ${file.name}…`], failed: false });
    try {
      const { importSceneBcf } = await import('./comments-bcf');
      const bytes = new Uint8Array(await file.arrayBuffer());
      const report = await importSceneBcf(session, bytes, { aspect: aspect(), defaultFov: viewer.navigation.perspectiveCamera.fov });
      const lines = [`Imported ${report.imported.length} of ${report.topics} topic(s) from ${file.name}.`, ...report.skipped, ...report.problems, ...report.failures];
      setBcf({ busy: false, lines, failed: report.failures.length > 0 || report.problems.length > 0 });
      onImported();
    } catch (error) {
      setBcf({ busy: false, lines: [`${file.name} could not be imported: ${error instanceof Error ? error.message : String(error)}`], failed: true });
    }
  };

  return { bcf, setBcf, exportBcf, importBcf };
}

/** The BCF buttons, the file picker and the last report. */
function BcfTools({ transfer, mayComment }: { transfer: ReturnType<typeof useBcfTransfer>; mayComment: boolean }) {
  const { bcf, setBcf, exportBcf, importBcf } = transfer;
  const fileRef = useRef<HTMLInputElement>(null);
  return (
    <>
      <div className="comments-bcf">
        <button type="button" data-testid="bcf-export" disabled={bcf?.busy} title="Download the comments as a BCF 2.1 file (.bcfzip)" onClick={() => void exportBcf()}>
          Export BCF
        </button>
        {mayComment && (
          <button type="button" data-testid="bcf-import" disabled={bcf?.busy} title="Add the topics of a BCF 2.1 file (.bcfzip) as comments" onClick={() => fileRef.current?.click()}>
            Import BCF
          </button>
        )}
        <input
          ref={fileRef}
          type="file"
          accept=".bcfzip,.bcf,application/zip"
          hidden
          data-testid="bcf-file"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) void importBcf(file);
          }}
        />
      </div>
      {bcf && (
        <div className={bcf.failed ? 'comments-bcf-report failed' : 'comments-bcf-report'} role={bcf.failed ? 'alert' : 'status'} data-testid="bcf-report">
          {bcf.lines.map((line, i) => (
            <p key={i}>{line}</p>
          ))}
          {!bcf.busy && (
            <button type="button" onClick={() => setBcf(null)}>
              Close
            </button>
          )}
        </div>
      )}
    </>
  );
}
