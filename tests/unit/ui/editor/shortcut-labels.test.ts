import { describe, expect, it } from 'vitest';
import { key, keysOf } from '../../../../src/ui/editor/shortcut-labels';

const mac = /Mac|iPhone|iPad/.test(globalThis.navigator?.platform ?? '');

describe('shortcut labels', () => {
  it("write a key in this platform's words", () => {
    expect(key('Mod+z')).toBe(mac ? '⌘Z' : 'Ctrl+Z');
    expect(key('Mod+Shift+z')).toBe(mac ? '⌘Shift+Z' : 'Ctrl+Shift+Z');
  });

  it("list an action's keys from the key map, those the browser keeps for itself last", () => {
    // translate-mode is Mod+t (a browser's new tab) and T.
    expect(keysOf('translate-mode')).toBe(`T / ${key('Mod+t')}`);
    expect(keysOf('rotate-mode')).toBe(key('Mod+r'));
  });
});
