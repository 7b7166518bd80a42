import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { EmbedViewer } from './EmbedViewer';
import { Home } from './Home';
import './styles.css';

function App() {
  const path = window.location.pathname;
  const embed = /^\/embed\/([^/]+)\/?$/.exec(path);
  if (embed) return <EmbedViewer sceneId={decodeURIComponent(embed[1])} />;
  if (path === '/' || path === '/index.html') return <Home />;
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
