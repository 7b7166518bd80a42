import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import type { EmbedBoot } from './embed-boot';
import { EmbedViewer } from './EmbedViewer';

// Each route is its own chunk: the embedded viewer's panels are this one (its screen and its load
// start before it, in src/ui/embed-boot.ts); the home page, its upload form and the editor load
// only when visited.
const Home = lazy(() => import('./Home').then((m) => ({ default: m.Home })));
const EditorPage = lazy(() => import('./editor/EditorPage').then((m) => ({ default: m.EditorPage })));

/** The embedded viewer's panels, rendered into the screen its boot made. */
export function renderEmbed(boot: EmbedBoot): void {
  createRoot(boot.ui).render(
    <StrictMode>
      <EmbedViewer boot={boot} />
    </StrictMode>,
  );
}

/** Every other page: the editor, the home page, not found. */
export function renderPage(root: HTMLElement, path: string): void {
  createRoot(root).render(
    <StrictMode>
      <Page path={path} />
    </StrictMode>,
  );
}

function Page({ path }: { path: string }) {
  const edit = /^\/edit\/([^/]+)\/?$/.exec(path);
  if (edit) {
    return (
      <Suspense fallback={null}>
        <EditorPage sceneId={decodeURIComponent(edit[1])} />
      </Suspense>
    );
  }
  if (path === '/' || path === '/index.html') {
    return (
      <Suspense fallback={null}>
        <Home />
      </Suspense>
    );
  }
  return (
    <main className="home">
      <h1>Not found</h1>
      <p>
        There is no page at <code>{path}</code>. <a href="/">Back to the scenes</a>.
      </p>
    </main>
  );
}
