import { formatKey, KEY_MAP, reservedByBrowser, type KeyAction } from '../../viewer/input/keymap';

/** The editor's buttons name their shortcuts as the key map has them, in this platform's words. */

const mac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
/** One key as this platform writes it: 'Ctrl+Z', or '⌘Z' on a Mac. */
export const key = (k: string) => formatKey(k, mac);
/** An action's keys from the key map, those a browser lets through first: 'T / Ctrl+T'. */
export const keysOf = (action: KeyAction) => {
  const keys = KEY_MAP.find((b) => b.action === action)?.keys ?? [];
  return [...keys.filter((k) => !reservedByBrowser(k)), ...keys.filter(reservedByBrowser)].map(key).join(' / ');
};
