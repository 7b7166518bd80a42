import { describe, expect, it } from 'vitest';
import { createKeyboard, isTextEntry } from '../../../../src/viewer/input/keyboard';
import { fakePage, FakeNode } from '../../support/fake-dom';

function stage() {
  const page = fakePage();
  const keyboard = createKeyboard(page.container as unknown as HTMLElement);
  const calls: string[] = [];
  return { ...page, keyboard, calls };
}

describe('keyboard', () => {
  it('takes keys only while the viewer has the focus', () => {
    const s = stage();
    s.keyboard.bind('tool-delete', () => (s.calls.push('delete'), true));
    s.keyboard.bind('tool-cancel', () => (s.calls.push('escape'), true));
    // Nothing pressed or focused in the viewer yet: keys on the page are not the viewer's.
    s.key(s.body, 'Escape');
    s.key(s.hostInput, 'Delete');
    expect(s.calls).toEqual([]);
    // From the focused canvas.
    expect(s.key(s.canvas, 'Delete').defaultPrevented).toBe(true);
    expect(s.calls).toEqual(['delete']);
    // A press on a panel button, then the button goes away: the focus falls to the body and the
    // viewer keeps the keys.
    s.dispatch(s.panelButton, 'pointerdown', { shiftKey: false });
    s.dispatch(s.panelButton, 'focusin');
    s.key(s.body, 'Escape');
    expect(s.calls).toEqual(['delete', 'escape']);
    // A press on the host page, or the focus moving to a control there, gives the keys back.
    s.dispatch(s.hostInput, 'pointerdown', { shiftKey: false });
    s.key(s.body, 'Escape');
    s.dispatch(s.canvas, 'focusin');
    s.dispatch(s.hostInput, 'focusin');
    s.key(s.hostInput, 'Delete');
    s.key(s.body, 'Delete');
    expect(s.calls).toEqual(['delete', 'escape']);
    s.keyboard.dispose();
    s.key(s.canvas, 'Delete');
    expect(s.calls).toEqual(['delete', 'escape']);
  });

  it('offers a key to the contexts in order until one takes it: Ctrl+Z is an area point only while one is in progress', () => {
    const s = stage();
    let areaInProgress = true;
    s.keyboard.bind('tool-undo-point', () => areaInProgress && (s.calls.push('point'), true));
    s.keyboard.bind('undo', () => (s.calls.push('history'), true));
    s.key(s.canvas, 'z', { ctrlKey: true });
    areaInProgress = false;
    const event = s.key(s.canvas, 'z', { ctrlKey: true });
    expect(s.calls).toEqual(['point', 'history']);
    expect(event.defaultPrevented).toBe(true);
    // Nobody takes it: the page keeps its default.
    const unbound = stage();
    expect(unbound.key(unbound.canvas, 'z', { ctrlKey: true }).defaultPrevented).toBe(false);
  });

  it('never takes typing, a slider\'s arrows, or Enter on a focused button', () => {
    const s = stage();
    s.keyboard.bind('tool-delete', () => (s.calls.push('delete'), true));
    s.keyboard.bind('tool-finish', () => (s.calls.push('enter'), true));
    s.keyboard.bind('walk-forward', () => (s.calls.push('walk'), true));
    const field = Object.assign(new FakeNode('field', s.container), { tagName: 'INPUT', type: 'text' });
    const slider = Object.assign(new FakeNode('slider', s.container), { tagName: 'INPUT', type: 'range' });
    s.key(field, 'Backspace');
    s.key(slider, 'ArrowUp');
    s.key(s.panelButton, 'Enter');
    expect(s.calls).toEqual([]);
    s.key(slider, 'Delete');
    s.key(s.canvas, 'Enter');
    expect(s.calls).toEqual(['delete', 'enter']);
    expect(isTextEntry({ tagName: 'TEXTAREA' } as unknown as EventTarget)).toBe(true);
    expect(isTextEntry({ tagName: 'DIV', isContentEditable: true } as unknown as EventTarget)).toBe(true);
    expect(isTextEntry({ tagName: 'INPUT', type: 'checkbox' } as unknown as EventTarget)).toBe(false);
    expect(isTextEntry(null)).toBe(false);
  });

  it('holds keys: the press, no repeats, the release, and a release of everything on blur', () => {
    const s = stage();
    s.keyboard.bind('walk-forward', (press) => (s.calls.push(press.pressed ? 'down' : 'up'), true));
    s.key(s.canvas, 'w');
    expect(s.key(s.canvas, 'w', { repeat: true }).defaultPrevented).toBe(true);
    s.key(s.canvas, 'w', {}, 'keyup');
    s.key(s.canvas, 'ArrowUp', { code: 'ArrowUp' });
    s.dispatch(s.view, 'blur');
    expect(s.calls).toEqual(['down', 'up', 'down', 'up']);
  });

  it('ignores auto-repeat unless the binding allows it (undo does)', () => {
    const s = stage();
    s.keyboard.bind('tool-delete', () => (s.calls.push('delete'), true));
    s.keyboard.bind('undo', () => (s.calls.push('undo'), true));
    s.key(s.canvas, 'Delete');
    s.key(s.canvas, 'Delete', { repeat: true });
    s.key(s.canvas, 'z', { ctrlKey: true });
    s.key(s.canvas, 'z', { ctrlKey: true, repeat: true });
    expect(s.calls).toEqual(['delete', 'undo', 'undo']);
  });

  it('tracks Shift anywhere on the page, and lists the bound contexts', () => {
    const s = stage();
    const seen: boolean[] = [];
    s.keyboard.onShift((on) => seen.push(on));
    s.key(s.hostInput, 'Shift');
    s.key(s.hostInput, 'Shift', {}, 'keyup');
    expect(seen).toEqual([true, false]);
    expect(s.keyboard.boundContexts().size).toBe(0);
    s.keyboard.bind('save', () => true);
    expect([...s.keyboard.boundContexts()]).toEqual(['editor']);
  });

  it('refuses an action outside the map and a second handler', () => {
    const s = stage();
    s.keyboard.bind('save', () => true);
    expect(() => s.keyboard.bind('save', () => true)).toThrow("The key action 'save' already has a handler.");
    expect(() => s.keyboard.bind('fly' as never, () => true)).toThrow("'fly' is not an action of the key map.");
  });
});
