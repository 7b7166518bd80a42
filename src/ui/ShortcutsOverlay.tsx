import { useEffect, useState } from 'react';
import { formatKey, keyMapByContext, reservedByBrowser, type KeyContext } from '../viewer/input/keymap';
import type { Keyboard } from '../viewer/input/keyboard';

const MAC = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/**
 * The '?' overlay: every shortcut of the one key map (src/viewer/input/keymap.ts) whose context
 * this screen has bound (the embedded viewer lists the viewer's, navigation's and the tools'; the
 * editor adds its own), grouped by context. '?' or the close button toggles it; Escape closes it.
 */
export function ShortcutsOverlay({ keys }: { keys: Keyboard }) {
  const [open, setOpen] = useState(false);
  // What this screen has bound, and the overlay's own Escape.
  const bound = (): Set<KeyContext> => new Set<KeyContext>([...keys.boundContexts(), 'overlay']);
  const [contexts, setContexts] = useState<Set<KeyContext>>(bound);
  useEffect(
    () =>
      keys.bind('help', () => {
        setContexts(bound());
        setOpen((o) => !o);
        return true;
      }),
    [keys],
  );
  // Escape closes it, before the tools hear it (the key map's 'overlay' context comes first).
  useEffect(() => {
    if (!open) return;
    return keys.bind('close-overlay', () => {
      setOpen(false);
      return true;
    });
  }, [keys, open]);
  if (!open) return null;
  return (
    <div className="shortcuts" role="dialog" aria-label="Keyboard shortcuts" data-testid="shortcuts-overlay">
      <div className="shortcuts-head">
        <h2>Keyboard shortcuts</h2>
        <button type="button" aria-label="Close the keyboard shortcuts" onClick={() => setOpen(false)}>
          ×
        </button>
      </div>
      {keyMapByContext(contexts).map((group) => (
        <section key={group.context} data-testid="shortcuts-group" data-context={group.context}>
          <h3>{group.title}</h3>
          <dl>
            {group.bindings.map((b) => (
              <div key={b.action} className="shortcut" data-action={b.action}>
                <dt>
                  {b.keys.map((k, i) => (
                    <span key={k}>
                      {i > 0 && ' / '}
                      <kbd className={reservedByBrowser(k) ? 'reserved' : undefined}>{formatKey(k, MAC)}</kbd>
                    </span>
                  ))}
                </dt>
                <dd>
                  {b.label}
                  {b.keys.filter(reservedByBrowser).map((k) => (
                    <small key={k} className="reserved-note" data-testid="reserved-note">
                      {' '}
                      ({formatKey(k, MAC)} is kept by the browser in a normal window; use {b.keys.filter((o) => !reservedByBrowser(o)).map((o) => formatKey(o, MAC)).join(' or ')})
                    </small>
                  ))}
                </dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
    </div>
  );
}
