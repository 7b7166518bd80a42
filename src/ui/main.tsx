import { EMBED_PATH } from '../protocol/embed-query';
import { bootEmbed } from './embed-boot';
import './styles.css';

// The entry holds no React: the embedded viewer (the page most often opened, in iframes, on
// phones) makes its screen and starts its load here; its panels are a chunk of their own (./app.tsx)
// fetched and rendered once the load has ended or the loading overlay's detail is due (panelsDue),
// so that their first render does not hold up the first picture. The other pages (editor, home,
// not found) render that chunk as soon as it is in. index.html has a prefetch link for it
// (vite.config.ts, panelsPrefetch).
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element.');
const path = window.location.pathname;
const embed = EMBED_PATH.exec(path);
const boot = embed ? bootEmbed(root, decodeURIComponent(embed[1])) : null;
(boot ? boot.panelsDue : Promise.resolve())
  .then(() => import('./app'))
  .then((m) => (boot ? m.renderEmbed(boot) : m.renderPage(root, path)))
  .catch((error: unknown) => {
    // The viewer goes on without its panels; the page says why (a chunk that could not be fetched,
    // or a first render that threw).
    console.error("The page's controls could not be loaded:", error);
    if (typeof reportError === 'function') reportError(error);
    const p = document.createElement('p');
    p.setAttribute('role', 'alert');
    p.className = 'chunk-failure';
    p.textContent = `The page's controls could not be loaded (${error instanceof Error ? error.message : String(error)}). Reload the page to try again.`;
    (boot?.ui ?? root).appendChild(p);
  });
