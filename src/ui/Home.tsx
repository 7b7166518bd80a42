import { useEffect, useState } from 'react';

interface SceneItem {
  id: string;
  name: string;
  modelCount?: number;
}

/** The home page: the scenes, each opened in the viewer. (Upload comes with the services issue.) */
export function Home() {
  const [scenes, setScenes] = useState<SceneItem[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    fetch('/v1/scenes')
      .then(async (r) => {
        if (!r.ok) throw new Error(`The scene list request failed: ${r.status}.`);
        return (await r.json()) as { scenes: SceneItem[] };
      })
      .then((body) => setScenes(body.scenes))
      .catch((e: Error) => setError(e.message));
  }, []);
  return (
    <main className="home">
      <h1>
        <img src="/assets/images/logo.svg" alt="" /> Parametricos
      </h1>
      <p>Scenes on this server. Add a model with <code>npm run import -- FILE</code>.</p>
      {error && <p className="error" role="alert">{error}</p>}
      {!scenes && !error && <p>Loading…</p>}
      {scenes && scenes.length === 0 && <p>No scenes yet.</p>}
      {scenes && (
        <ul className="scene-list">
          {scenes.map((s) => (
            <li key={s.id}>
              <a href={`/embed/${encodeURIComponent(s.id)}`}>{s.name || s.id}</a>
              {typeof s.modelCount === 'number' && <span className="muted"> · {s.modelCount} model{s.modelCount === 1 ? '' : 's'}</span>}
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
