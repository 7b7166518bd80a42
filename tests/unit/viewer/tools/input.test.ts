import { describe, expect, it } from 'vitest';
import { createClickTracker, createDoubleClickDetector } from '../../../../src/viewer/tools/click-tracker';
import { attachPointerInput, keyAction, type InputHandlers } from '../../../../src/viewer/tools/input';

describe('click tracker', () => {
  it('tells a click from a drag by the movement threshold', () => {
    const t = createClickTracker(5, 800);
    t.down(100, 100, 0, 0);
    t.move(102, 103);
    expect(t.dragging).toBe(false);
    expect(t.up(103, 103, 100, 0)).toBe('click');
    t.down(100, 100, 0, 0);
    t.move(110, 100);
    expect(t.dragging).toBe(true);
    // Coming back to the start does not make it a click again.
    t.move(100, 100);
    expect(t.up(100, 100, 100, 0)).toBe('drag');
  });

  it('treats a long press as a hold, and ignores releases of other buttons', () => {
    const t = createClickTracker(5, 800);
    t.down(0, 0, 0, 0);
    expect(t.up(0, 0, 900, 0)).toBe('drag');
    t.down(0, 0, 0, 0);
    expect(t.up(0, 0, 10, 2)).toBeNull();
    expect(t.up(0, 0, 20, 0)).toBe('click');
    expect(t.up(0, 0, 30, 0)).toBeNull();
  });
});

describe('keyAction', () => {
  const key = (k: string, extra: Partial<KeyboardEvent> = {}, target: unknown = null) =>
    keyAction({ key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, target: target as EventTarget, ...extra });
  const element = (tagName: string, props: Record<string, unknown> = {}) => ({ tagName, getAttribute: () => null, ...props });

  it('maps Escape, Delete, Backspace, Enter and Ctrl/Cmd+Z', () => {
    expect(key('Escape')).toBe('escape');
    expect(key('Delete')).toBe('delete');
    expect(key('Backspace')).toBe('delete');
    expect(key('Enter')).toBe('enter');
    expect(key('z', { ctrlKey: true })).toBe('undo');
    expect(key('z', { metaKey: true })).toBe('undo');
    expect(key('Z', { ctrlKey: true, shiftKey: true })).toBeNull();
    expect(key('z')).toBeNull();
    expect(key('a')).toBeNull();
  });

  it('leaves keys typed into text fields alone, and Enter to buttons', () => {
    expect(key('Backspace', {}, element('INPUT', { type: 'text' }))).toBeNull();
    expect(key('z', { ctrlKey: true }, element('TEXTAREA'))).toBeNull();
    expect(key('Delete', {}, element('DIV', { isContentEditable: true }))).toBeNull();
    expect(key('Delete', {}, element('INPUT', { type: 'checkbox' }))).toBe('delete');
    expect(key('Enter', {}, element('BUTTON'))).toBeNull();
    expect(key('Escape', {}, element('BUTTON'))).toBe('escape');
  });
});

describe('double-click detector', () => {
  it('pairs two quick clicks at one place, then starts over', () => {
    const d = createDoubleClickDetector(400);
    expect(d.click(10, 10, 0, false)).toBe(false);
    expect(d.click(12, 11, 250, false)).toBe(true);
    expect(d.click(12, 11, 300, false)).toBe(false); // a third click starts a new pair
    expect(d.click(12, 11, 800, false)).toBe(false); // too late: a new first click
    expect(d.click(40, 11, 900, false)).toBe(false); // too far
  });

  it('allows a wider slop for taps, and forgets a click after a drag', () => {
    const d = createDoubleClickDetector(400);
    d.click(10, 10, 0, true);
    expect(d.click(30, 10, 200, true)).toBe(true);
    d.click(10, 10, 1000, false);
    d.reset();
    expect(d.click(10, 10, 1100, false)).toBe(false);
  });
});

// ---- attachPointerInput on a small stand-in DOM (capture, target and bubble phases) ------------

type Listener = { type: string; fn: (event: any) => void; capture: boolean };

class FakeNode {
  readonly listeners: Listener[] = [];
  constructor(
    readonly name: string,
    readonly parent: FakeNode | null = null,
  ) {}
  addEventListener(type: string, fn: (event: any) => void, options?: boolean | { capture?: boolean }) {
    this.listeners.push({ type, fn, capture: typeof options === 'boolean' ? options : !!options?.capture });
  }
  removeEventListener(type: string, fn: (event: any) => void, options?: boolean | { capture?: boolean }) {
    const capture = typeof options === 'boolean' ? options : !!options?.capture;
    const i = this.listeners.findIndex((l) => l.type === type && l.fn === fn && l.capture === capture);
    if (i >= 0) this.listeners.splice(i, 1);
  }
  contains(node: FakeNode | null): boolean {
    for (let n = node; n; n = n.parent) if (n === this) return true;
    return false;
  }
  setPointerCapture() {}
  releasePointerCapture() {}
}

function stage(options: { grab?: boolean } = {}) {
  const frames = new Map<number, () => void>();
  let frameId = 0;
  const view = Object.assign(new FakeNode('window'), {
    requestAnimationFrame: (fn: () => void) => (frames.set(++frameId, fn), frameId),
    cancelAnimationFrame: (id: number) => void frames.delete(id),
  });
  const runFrame = () => {
    const due = [...frames.values()];
    frames.clear();
    for (const fn of due) fn();
  };
  const doc = Object.assign(new FakeNode('document', view), { defaultView: view, documentElement: null as FakeNode | null, body: null as FakeNode | null });
  const html = new FakeNode('html', doc);
  const body = new FakeNode('body', html);
  doc.documentElement = html;
  doc.body = body;
  const container = Object.assign(new FakeNode('container', body), { ownerDocument: doc });
  const canvas = new FakeNode('canvas', container);
  const panelButton = new FakeNode('panel button', container);
  const hostInput = Object.assign(new FakeNode('host input', body), { tagName: 'BUTTON', getAttribute: () => null });
  const calls: string[] = [];
  const camera = { enabled: true };
  const handlers: InputHandlers = {
    grab: () => options.grab === true,
    drag: (x, y) => calls.push(`drag ${x},${y}`),
    release: (x, y) => calls.push(`release ${x},${y}`),
    click: () => calls.push('click'),
    shiftClick: () => calls.push('shiftClick'),
    doubleClick: () => calls.push('doubleClick'),
    hover: () => calls.push('hover'),
    leave: () => calls.push('leave'),
    key: (action) => (calls.push(`key ${action}`), true),
  };
  const input = attachPointerInput(container as unknown as HTMLElement, canvas as unknown as HTMLCanvasElement, () => camera, handlers);

  const dispatch = (target: FakeNode, type: string, props: Record<string, unknown> = {}) => {
    const path: FakeNode[] = [];
    for (let n: FakeNode | null = target; n; n = n.parent) path.push(n);
    let stopped = false;
    const event = {
      type,
      target,
      defaultPrevented: false,
      preventDefault() {
        this.defaultPrevented = true;
      },
      stopPropagation() {
        stopped = true;
      },
      ...props,
    };
    const run = (node: FakeNode, capture: boolean | null) => {
      for (const l of [...node.listeners]) if (l.type === type && (capture === null || l.capture === capture) && !stopped) l.fn(event);
    };
    for (let i = path.length - 1; i > 0; i--) run(path[i], true);
    run(target, null);
    for (let i = 1; i < path.length; i++) run(path[i], false);
    return event;
  };
  let time = 1000;
  const pointer = (target: FakeNode, type: string, id: number, x: number, y: number, isPrimary = id === 1) => {
    time += 40;
    dispatch(target, type, { pointerId: id, isPrimary, pointerType: 'touch', button: 0, buttons: type === 'pointerup' ? 0 : 1, clientX: x, clientY: y, timeStamp: time, shiftKey: false });
  };
  const tap = (x: number, y: number) => {
    pointer(canvas, 'pointerdown', 1, x, y);
    pointer(canvas, 'pointerup', 1, x, y);
  };
  const key = (target: FakeNode, k: string) => dispatch(target, 'keydown', { key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, repeat: false });
  return { view, doc, body, container, canvas, panelButton, hostInput, calls, camera, input, dispatch, pointer, tap, key, runFrame };
}

describe('attachPointerInput', () => {
  it('reports a tap as a click and two taps as a double tap', () => {
    const s = stage();
    s.tap(100, 100);
    s.tap(102, 101);
    expect(s.calls).toEqual(['click', 'click', 'doubleClick']);
  });

  it('never makes a click or a double tap out of two fingers (a two-finger tap, a small pinch)', () => {
    const s = stage();
    for (let round = 0; round < 2; round++) {
      s.pointer(s.canvas, 'pointerdown', 1, 100, 100);
      s.pointer(s.canvas, 'pointerdown', 2, 200, 200);
      // The second time, both fingers move a little (under the click threshold).
      if (round === 1) {
        s.pointer(s.canvas, 'pointermove', 1, 102, 100);
        s.pointer(s.canvas, 'pointermove', 2, 198, 200);
      }
      // The first finger lifts first.
      s.pointer(s.canvas, 'pointerup', 1, 101, 100);
      s.pointer(s.canvas, 'pointerup', 2, 200, 200);
    }
    expect(s.calls).toEqual([]);
    // A tap right after a pinch is one click, not the second half of a double tap.
    s.tap(100, 100);
    expect(s.calls).toEqual(['click']);
  });

  it('takes keys only while the viewer has the focus', () => {
    const s = stage();
    // Nothing pressed or focused in the viewer yet: keys on the page are not the tools'.
    s.key(s.body, 'Escape');
    s.key(s.hostInput, 'Delete');
    expect(s.calls).toEqual([]);
    // From the focused canvas (its keys bubble through the container).
    expect(s.key(s.canvas, 'Delete').defaultPrevented).toBe(true);
    expect(s.calls).toEqual(['key delete']);
    // A press on a panel button, then the button goes away: the focus falls to the body and the
    // viewer keeps the keys.
    s.pointer(s.panelButton, 'pointerdown', 1, 10, 10);
    s.dispatch(s.panelButton, 'focusin');
    s.pointer(s.panelButton, 'pointerup', 1, 10, 10);
    s.key(s.body, 'Escape');
    expect(s.calls).toEqual(['key delete', 'key escape']);
    // A press on the host page, or the focus moving to a control there, gives the keys back.
    s.pointer(s.hostInput, 'pointerdown', 1, 500, 500);
    s.key(s.body, 'Escape');
    s.dispatch(s.canvas, 'focusin');
    s.dispatch(s.hostInput, 'focusin');
    s.key(s.hostInput, 'Delete');
    s.key(s.body, 'Delete');
    expect(s.calls).toEqual(['key delete', 'key escape']);
    s.input.dispose();
    s.key(s.canvas, 'Delete');
    expect(s.calls).toEqual(['key delete', 'key escape']);
  });

  it('drags a grabbed handle at most once per animation frame, and lets go where the pointer did', () => {
    const s = stage({ grab: true });
    s.pointer(s.canvas, 'pointerdown', 1, 100, 100);
    expect(s.camera.enabled).toBe(false);
    for (const x of [110, 120, 130]) s.pointer(s.canvas, 'pointermove', 1, x, 100);
    expect(s.calls).toEqual([]);
    s.runFrame();
    expect(s.calls).toEqual(['drag 130,100']);
    s.runFrame();
    expect(s.calls).toEqual(['drag 130,100']);
    // Moves still waiting for their frame are applied before the release.
    s.pointer(s.canvas, 'pointermove', 1, 140, 100);
    s.pointer(s.canvas, 'pointermove', 1, 150, 105);
    s.pointer(s.canvas, 'pointerup', 1, 150, 105);
    expect(s.calls).toEqual(['drag 130,100', 'drag 150,105', 'release 150,105']);
    expect(s.camera.enabled).toBe(true);
    s.runFrame();
    expect(s.calls).toHaveLength(3);
  });
});
