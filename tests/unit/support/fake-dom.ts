/**
 * A small stand-in DOM for input tests in Node: nodes with parents, listeners in the capture,
 * target and bubble phases, contains(), pointer capture stubs, and a document with a body.
 */
type Listener = { type: string; fn: (event: any) => void; capture: boolean };

export class FakeNode {
  readonly listeners: Listener[] = [];
  tagName = 'DIV';
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
  getAttribute(): null {
    return null;
  }
  setPointerCapture() {}
  releasePointerCapture() {}
  focus() {}
}

export function fakePage() {
  const view = new FakeNode('window');
  const doc = Object.assign(new FakeNode('document', view), {
    defaultView: view,
    documentElement: null as FakeNode | null,
    body: null as FakeNode | null,
    activeElement: null as FakeNode | null,
    visibilityState: 'visible',
  });
  const html = new FakeNode('html', doc);
  const body = new FakeNode('body', html);
  doc.documentElement = html;
  doc.body = body;
  const container = Object.assign(new FakeNode('container', body), { ownerDocument: doc });
  const canvas = Object.assign(new FakeNode('canvas', container), { tagName: 'CANVAS', ownerDocument: doc });
  const panelButton = Object.assign(new FakeNode('panel button', container), { tagName: 'BUTTON' });
  const hostInput = Object.assign(new FakeNode('host input', body), { tagName: 'BUTTON' });

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
  const key = (target: FakeNode, key: string, extra: Record<string, unknown> = {}, type = 'keydown') =>
    dispatch(target, type, { key, code: extra.code ?? codeOf(key), ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, repeat: false, ...extra });
  return { view, doc, body, container, canvas, panelButton, hostInput, dispatch, key };
}

function codeOf(key: string): string {
  if (/^[a-z]$/i.test(key)) return `Key${key.toUpperCase()}`;
  return key;
}
