import { describe, expect, it } from 'vitest';
import { bindingsFor, BROWSER_RESERVED_KEYS, CONTEXT_ORDER, formatKey, KEY_MAP, keyMapByContext, matchesChord, parseChord, reservedByBrowser, type KeyEventLike } from '../../../../src/viewer/input/keymap';

const event = (key: string, extra: Partial<KeyEventLike> = {}): KeyEventLike => ({
  key,
  code: /^[a-z]$/i.test(key) ? `Key${key.toUpperCase()}` : key,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...extra,
});

describe('key map', () => {
  it('has every shortcut of both specifications, once per context', () => {
    const actions = KEY_MAP.map((b) => b.action);
    expect(new Set(actions).size).toBe(actions.length);
    for (const a of ['undo', 'redo', 'save', 'translate-mode', 'rotate-mode', 'scale-mode', 'copy', 'delete', 'tool-cancel', 'tool-finish', 'tool-undo-point', 'tool-delete', 'walk-forward', 'help', 'comment-cancel', 'orbit-left', 'orbit-up', 'zoom-in', 'zoom-out', 'section-free-rotate'] as const) {
      expect(actions).toContain(a);
    }
    // No two bindings of one context share a key.
    for (const context of CONTEXT_ORDER) {
      const keys = KEY_MAP.filter((b) => b.context === context).flatMap((b) => b.keys);
      expect(new Set(keys).size, context).toBe(keys.length);
    }
  });

  it('offers an arrow to walking first, then to the keyboard orbit', () => {
    const arrow = { key: 'ArrowLeft', code: 'ArrowLeft', ctrlKey: false, metaKey: false, shiftKey: false, altKey: false };
    expect(bindingsFor(arrow).map((b) => b.action)).toEqual(['walk-left', 'orbit-left']);
    const plus = { key: '+', code: 'Equal', ctrlKey: false, metaKey: false, shiftKey: true, altKey: false };
    expect(bindingsFor(plus).map((b) => b.action)).toEqual(['zoom-in']);
  });

  it('parses keys: Mod and Shift, key names and physical codes', () => {
    expect(parseChord('Mod+Shift+z')).toEqual({ mod: true, shift: true, code: null, key: 'z' });
    expect(parseChord('KeyW')).toEqual({ mod: false, shift: false, code: 'KeyW', key: null });
    expect(parseChord('Escape')).toEqual({ mod: false, shift: false, code: null, key: 'Escape' });
    expect(() => parseChord('Hyper+z')).toThrow("Unknown modifier 'Hyper' in the key 'Hyper+z'.");
  });

  it('matches Ctrl or Cmd exactly, Shift only on Mod keys, and never Alt', () => {
    const undo = parseChord('Mod+z');
    expect(matchesChord(undo, event('z', { ctrlKey: true }))).toBe(true);
    expect(matchesChord(undo, event('Z', { metaKey: true }))).toBe(true);
    expect(matchesChord(undo, event('z'))).toBe(false);
    expect(matchesChord(undo, event('Z', { ctrlKey: true, shiftKey: true }))).toBe(false);
    expect(matchesChord(undo, event('z', { ctrlKey: true, altKey: true }))).toBe(false);
    const del = parseChord('Delete');
    expect(matchesChord(del, event('Delete', { shiftKey: true }))).toBe(true);
    expect(matchesChord(del, event('Delete', { ctrlKey: true }))).toBe(false);
    // '?' is Shift+/ on many layouts; walking keys run with Shift.
    expect(matchesChord(parseChord('?'), event('?', { shiftKey: true, code: 'Slash' }))).toBe(true);
    expect(matchesChord(parseChord('KeyW'), event('W', { shiftKey: true }))).toBe(true);
    // Physical keys by code: W on an AZERTY keyboard is where Z is.
    expect(matchesChord(parseChord('KeyW'), event('z', { code: 'KeyW' }))).toBe(true);
  });

  it('offers Ctrl+Z to the viewer tools before the editor, and Ctrl+Shift+Z only to redo', () => {
    expect(bindingsFor(event('z', { ctrlKey: true })).map((b) => b.action)).toEqual(['tool-undo-point', 'undo']);
    expect(bindingsFor(event('z', { ctrlKey: true, shiftKey: true })).map((b) => b.action)).toEqual(['redo']);
    expect(bindingsFor(event('s', { ctrlKey: true })).map((b) => b.action)).toEqual(['save']);
    expect(bindingsFor(event('S', { ctrlKey: true, shiftKey: true })).map((b) => b.action)).toEqual(['scale-mode']);
    expect(bindingsFor(event('Escape')).map((b) => b.action)).toEqual(['close-overlay', 'comment-cancel', 'tool-cancel']);
    expect(bindingsFor(event('Delete')).map((b) => b.action)).toEqual(['tool-delete', 'delete']);
    expect(bindingsFor(event('x'))).toEqual([]);
  });

  it('writes keys as people read them and groups the map for the overlay', () => {
    expect(formatKey('Mod+Shift+z')).toBe('Ctrl+Shift+Z');
    expect(formatKey('Mod+Shift+z', true)).toBe('⌘+Shift+Z');
    expect(formatKey('KeyW')).toBe('W');
    expect(formatKey('ArrowUp')).toBe('↑');
    expect(formatKey('Escape')).toBe('Esc');
    const groups = keyMapByContext(new Set(['viewer', 'viewer-tools']));
    expect(groups.map((g) => g.context)).toEqual(['viewer', 'viewer-tools']);
    expect(keyMapByContext().map((g) => g.context)).toEqual(['viewer', 'overlay', 'navigation', 'viewer-tools', 'editor', 'comment-tool']);
  });

  it('never leaves an action only on a key the browser keeps (Ctrl+T): T alone moves', () => {
    expect(reservedByBrowser('Mod+t')).toBe(true);
    expect(reservedByBrowser('Mod+Shift+t')).toBe(true);
    expect(reservedByBrowser('Mod+w')).toBe(true);
    expect(reservedByBrowser('KeyT')).toBe(false);
    expect(reservedByBrowser('Mod+r')).toBe(false);
    expect(reservedByBrowser('Mod+s')).toBe(false);
    for (const binding of KEY_MAP) expect(binding.keys.some((k) => !reservedByBrowser(k)), binding.action).toBe(true);
    // The specification's Ctrl+T is kept (it works where a browser hands it over) beside T.
    const translate = KEY_MAP.find((b) => b.action === 'translate-mode')!;
    expect(translate.keys).toEqual(['Mod+t', 'KeyT']);
    expect(bindingsFor(event('t')).map((b) => b.action)).toEqual(['translate-mode']);
    expect(bindingsFor(event('t', { ctrlKey: true })).map((b) => b.action)).toEqual(['translate-mode']);
    expect(BROWSER_RESERVED_KEYS.every((k) => parseChord(k).mod)).toBe(true);
  });

  it('lists the gizmo snapping key (held Shift) in the editor', () => {
    const snap = KEY_MAP.find((b) => b.action === 'gizmo-snap')!;
    expect(snap).toMatchObject({ context: 'editor', keys: ['Shift'], hold: true });
    expect(snap.label).toContain('0.1 m');
    expect(snap.label).toContain('15°');
    expect(keyMapByContext(new Set(['editor']))[0]!.bindings.map((b) => b.action)).toContain('gizmo-snap');
    // A Shift press goes to a section plane's free rotation first, then to the gizmo's snapping.
    expect(bindingsFor(event('Shift', { code: 'ShiftLeft', shiftKey: true })).map((b) => b.action)).toEqual(['section-free-rotate', 'gizmo-snap']);
    // Ctrl+Shift+Z is not a Shift press: redo only.
    expect(bindingsFor(event('Shift', { code: 'ShiftLeft', shiftKey: true, ctrlKey: true })).map((b) => b.action)).toEqual([]);
  });
});
