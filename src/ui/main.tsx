import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { EmbedViewer } from './EmbedViewer';
import './styles.css';

// Each route is its own chunk except the embedded viewer, the page most often opened (in iframes,
// on phones): the home page and its upload form load only when visited.
const Home = lazy(() => import('./Home').then((m) => ({ default: m.Home })));
const EditorPage = lazy(() => import('./editor/EditorPage').then((m) => ({ default: m.EditorPage })));

function App() {
  const path = window.location.pathname;
  const embed = /^\/embed\/([^/]+)\/?$/.exec(path);
  if (embed) return <EmbedViewer sceneId={decodeURIComponent(embed[1])} />;
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

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element.');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
