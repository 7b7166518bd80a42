import { useEffect, useMemo, useRef, useState } from 'react';
import { useSnapshot } from 'valtio';
import { createEditor, type Editor } from '../../editor/editor';
import { indexedDbQueueStore } from '../../editor/persist';
import { getToken, readStoredToken, setTokenGenerator, signInUrl, storedTokenGenerator } from '../../service/token';
import { sceneDocuments } from '../../viewer/documents';
import { SceneDoc } from '../../protocol/scene';
import { createServiceClient, path, reasonOf, type ServiceClient } from '../../service/client';
import { createEmbedController, type EmbedController } from '../embed-controller';
import { createEmbedState } from '../embed-state';
import { ShortcutsOverlay } from '../ShortcutsOverlay';
import type { PageComments } from '../comments-bridge';
import { addEditorNotice, bindEditorState, createEditorUiState, type EditorUiState } from './editor-state';
import { HistoryPanel, Outliner, PropertiesPanel, StatusBar, Toolbar } from './panels';
import { ScenePanel } from './scene-panel';
import { HostOriginsPanel, type HostOriginsPanelProps } from './host-origins';
import { shareEditorSelection } from './meeting-selection';
import { AssetLibrary } from '../AssetLibrary';
import './editor.css';

/** The editor screen, /edit/{sceneId}: the viewer's canvas with the outliner, properties, history, toolbar and status bar. */
export function EditorPage({ sceneId }: { sceneId: string }) {
  const embed = useMemo(() => createEmbedState(), []);
  const state = useMemo(() => createEditorUiState(), []);
  const embedSnap = useSnapshot(embed);
  const snap = useSnapshot(state);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const containerRef = useRef<HTMLDivElement>(null);
  const controllerRef = useRef<EmbedController | null>(null);
  const [ready, setReady] = useState(false);
  // The scene's host pages (hostOrigins), as the scene document had them when the editor started.
  const [hostPages, setHostPages] = useState<Pick<HostOriginsPanelProps, 'modelService' | 'initial' | 'owner'> | null>(null);
  // The scene's comments (the same panel as the embed's; a chunk fetched once the scene is shown).
  // The comment tool's click wins over the editor's selection while the tool is on: it takes the
  // click before the viewer raises the 'hit' the editor selects on.
  const [comments, setComments] = useState<PageComments | null>(null);
  useEffect(() => {
    const controller = controllerRef.current;
    if (embedSnap.phase !== 'ready' || !controller) return;
    let live = true;
    void controller.commentsReady.then((started) => {
      if (live) setComments(started);
    });
    return () => {
      live = false;
      setComments(null);
    };
  }, [embedSnap.phase]);

  useEffect(() => {
    const canvas = canvasRef.current;
    const container = containerRef.current;
    if (!canvas || !container) return;
    setTokenGenerator(storedTokenGenerator());
    const controller = createEmbedController(sceneId, embed, { canvas, container });
    controllerRef.current = controller;
    controller.start();
    return () => {
      controller.dispose();
      controllerRef.current = null;
    };
  }, [sceneId, embed]);

  // Once the scene is shown: who may edit it, then the editor.
  useEffect(() => {
    if (embedSnap.phase !== 'ready' || !controllerRef.current?.viewer) return;
    const viewer = controllerRef.current.viewer;
    let editor: Editor | null = null;
    let unbind: (() => void) | null = null;
    let cancelled = false;
    void (async () => {
      const { config, scene } = await sceneDocuments(sceneId);
      const access = await checkAccess(config.endpoints.modelService, scene);
      if (cancelled) return;
      state.access = access;
      if (access.kind !== 'editor') return;
      setHostPages({ modelService: config.endpoints.modelService, initial: scene.hostOrigins, owner: access.owner });
      const store = indexedDbQueueStore(sceneId);
      const restorable = await store.read().catch((error) => {
        addEditorNotice(state, `Unsaved edits kept in this browser could not be read: ${(error as Error).message}`);
        return null;
      });
      if (cancelled) return;
      editor = createEditor(viewer, {
        sceneId,
        modelService: config.endpoints.modelService,
        getToken: () => getToken(),
        store,
        restorable,
        sceneSettings: scene.viewerConfig?.scene,
        loadAsset: (assetId) => viewer.instanceAsset(config, assetId),
      });
      unbind = bindEditorState(editor, state);
      editor.enable();
      exposeEditor(editor);
      setReady(true);
    })().catch((error) => addEditorNotice(state, `The editor could not start: ${(error as Error).message}`));
    return () => {
      cancelled = true;
      unbind?.();
      editor?.dispose();
    };
  }, [embedSnap.phase, sceneId, state]);

  // In the scene's meeting, what this editor selects is shown to the others in this person's colour
  // (and theirs to this one). The meeting object is read at each render: a rejoin replaces it.
  const meeting = embedSnap.meeting ? (controllerRef.current?.meeting ?? null) : null;
  useEffect(() => {
    const editor = state.editor;
    if (!snap.editor || !editor || !meeting) return;
    return shareEditorSelection(editor, meeting);
  }, [snap.editor, meeting, state]);

  // Leaving with unsaved edits asks first.
  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      const editor = state.editor;
      if (editor && (editor.queues.size > 0 || editor.saver.saving)) {
        event.preventDefault();
        event.returnValue = '';
      }
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [state]);

  const viewer = controllerRef.current?.viewer ?? null;
  return (
    <div className="editor" data-testid="editor">
      <Toolbar state={state} />
      <aside className="editor-left">{ready && viewer && <Outliner state={state} world={viewer.world} />}</aside>
      <div className="editor-viewport" ref={containerRef}>
        <canvas className="embed-canvas" ref={canvasRef} data-testid="viewer-canvas" tabIndex={0} />
        {(embedSnap.phase === 'loading' || embedSnap.phase === 'started') && (
          <div className="editor-overlay" role="status">
            Loading the scene…
          </div>
        )}
        {embedSnap.phase === 'failed' && (
          <div className="editor-overlay failed" role="alert">
            {embedSnap.failureTitle} {embedSnap.failureDetail}
          </div>
        )}
        {viewer && embedSnap.phase === 'ready' && <ShortcutsOverlay keys={viewer.keys} />}
        {viewer && comments && <comments.Panel viewer={viewer} comments={comments.viewer} session={comments.session} sceneName={embedSnap.sceneName} />}
        <AccessBanner state={state} sceneId={sceneId} />
        <Notices state={state} embedNotices={embedSnap.notices.map((n) => n.text)} />
      </div>
      <aside className="editor-right">
        {ready && viewer && <PropertiesPanel state={state} />}
        {ready && viewer && <ScenePanel state={state} />}
        {ready && hostPages && <HostOriginsPanel sceneId={sceneId} {...hostPages} token={() => getToken().catch(() => null)} />}
        {ready && <HistoryPanel state={state} />}
        {ready && (
          <section className="editor-panel assets" aria-label="Assets" data-testid="editor-assets">
            <h2>Assets</h2>
            <AssetLibrary
              signedIn
              returnTo={`/edit/${sceneId}`}
              onPlace={(assetId) =>
                void state.editor
                  ?.placeAsset(assetId)
                  .catch((error: unknown) => addEditorNotice(state, `The asset could not be placed: ${(error as Error).message}`))
              }
            />
          </section>
        )}
      </aside>
      <StatusBar state={state} sceneId={sceneId} />
    </div>
  );
}

/** The model service's client for this page: the sign-in's stored token. */
function serviceOf(modelService: string): ServiceClient {
  return createServiceClient({ baseUrl: modelService, token: () => readStoredToken() });
}

async function checkAccess(modelService: string, scene: { _id: string; ownerId?: string; editors?: string[] }): Promise<EditorUiState['access']> {
  const me = await serviceOf(modelService).me();
  if (!me) return { kind: 'signed-out' };
  const userName = `${me.firstName} ${me.lastName}`.trim();
  if (scene.ownerId === me.id || (scene.editors ?? []).includes(me.id)) return { kind: 'editor', userName, owner: scene.ownerId === me.id };
  if (!scene.ownerId) return { kind: 'may-duplicate', userName };
  return { kind: 'forbidden', userName, reason: 'Only the owner of this scene and the editors they chose may change it.' };
}

function AccessBanner({ state, sceneId }: { state: EditorUiState; sceneId: string }) {
  const snap = useSnapshot(state);
  const [busy, setBusy] = useState(false);
  const access = snap.access;
  if (access.kind === 'checking' || access.kind === 'editor') return null;
  const duplicate = async () => {
    setBusy(true);
    try {
      const { config } = await sceneDocuments(sceneId);
      // Only the copy's id is read: a copy made is never reported as failed over another field.
      const copy = await serviceOf(config.endpoints.modelService).request('POST', path`/v1/scenes/${sceneId}/duplicate`, {
        schema: SceneDoc.pick({ _id: true }),
        auth: 'required',
        what: 'The copy',
      });
      window.location.assign(`/edit/${encodeURIComponent(copy._id)}`);
    } catch (error) {
      addEditorNotice(state, `The scene could not be duplicated: ${reasonOf(error)}`);
      setBusy(false);
    }
  };
  return (
    <div className="editor-banner" role="region" aria-label="Editing" data-testid="access-banner">
      {access.kind === 'signed-out' && (
        <p>
          You are viewing this scene. <a href={signInUrl()}>Sign in</a> to edit it.
        </p>
      )}
      {access.kind === 'may-duplicate' && (
        <p>
          This is a shared demo scene: nobody edits it directly. Make your own copy to edit it.{' '}
          <button type="button" onClick={duplicate} disabled={busy} data-testid="duplicate">
            {busy ? 'Duplicating…' : 'Duplicate to edit'}
          </button>
        </p>
      )}
      {access.kind === 'forbidden' && (
        <p data-testid="forbidden">
          Signed in as {access.userName}: you may view this scene but not change it. {access.reason}
        </p>
      )}
    </div>
  );
}

function Notices({ state, embedNotices }: { state: EditorUiState; embedNotices: string[] }) {
  const snap = useSnapshot(state);
  if (!snap.notices.length && !embedNotices.length && !snap.restorable) return null;
  return (
    <ul className="editor-notices" data-testid="editor-notices">
      {snap.restorable && (
        <li data-testid="restore-offer">
          <span>
            {snap.restorable.count} unsaved edit{snap.restorable.count === 1 ? '' : 's'} from {new Date(snap.restorable.savedAt).toLocaleString()} are kept in
            this browser.
          </span>
          <button type="button" onClick={() => state.editor?.restoreUnsaved()}>
            Restore
          </button>
          <button
            type="button"
            onClick={() => {
              state.editor?.discardUnsaved();
              state.restorable = null;
            }}
          >
            Discard
          </button>
        </li>
      )}
      {embedNotices.map((text) => (
        <li key={text}>{text}</li>
      ))}
      {snap.notices.map((n) => (
        <li key={n.id} role="alert">
          <span>{n.text}</span>
          <button
            type="button"
            aria-label="Dismiss"
            onClick={() =>
              state.notices.splice(
                state.notices.findIndex((x) => x.id === n.id),
                1,
              )
            }
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

/** window.__editor: a read-only debug handle for devtools, browser tests and benches. */
function exposeEditor(editor: Editor): void {
  Object.defineProperty(window, '__editor', { value: editor, configurable: true });
}
