import { bindingsFor, KEY_MAP, type KeyAction, type KeyBinding, type KeyContext } from './keymap';

/** What a key handler hears: the press (and, for held keys, the release). */
export interface KeyPress {
  readonly action: KeyAction;
  /** false for the release of a held key. */
  readonly pressed: boolean;
  readonly shift: boolean;
  readonly repeat: boolean;
}

/** Returns true when it took the key (its default is then prevented and no other context hears it). */
export type KeyHandler = (press: KeyPress) => boolean;

export interface Keyboard {
  /** The one handler of an action (from the key map); returns its removal. */
  bind(action: KeyAction, handler: KeyHandler): () => void;
  /** The contexts with at least one bound action (what the '?' overlay lists). */
  boundContexts(): Set<KeyContext>;
  /** Whether Shift is held now (anywhere on the page: the editor camera's truck switch, running). */
  readonly shift: boolean;
  /** Called when Shift is pressed or released; returns the unsubscribe. */
  onShift(listener: (held: boolean) => void): () => void;
  /** Whether the viewer has the keyboard now (tests, the overlay). */
  readonly focused: boolean;
  dispose(): void;
}

/**
 * The viewer's keyboard: one listener on the window for the whole viewer. A key counts only while
 * the viewer has the focus (an element inside the container, or the body after the viewer was the
 * last place pressed or focused), so a host page's keys are never taken; never while typing in a
 * text field or on a slider; Enter is left to a focused button or link. A press is matched against
 * the key map and offered to the bound handlers in context order until one takes it.
 */
export function createKeyboard(container: HTMLElement, map: readonly KeyBinding[] = KEY_MAP): Keyboard {
  const doc = container.ownerDocument;
  const view = doc.defaultView ?? window;
  const handlers = new Map<KeyAction, KeyHandler>();
  const shiftListeners = new Set<(held: boolean) => void>();
  /** Held keys (by code) -> the action that took their press. */
  const held = new Map<string, KeyAction>();
  let shift = false;
  let owned = false;

  const inside = (target: EventTarget | null) => !!target && container.contains(target as Node);
  const hasFocus = (target: EventTarget | null) =>
    inside(target) || (owned && (target === null || target === doc.body || target === doc.documentElement || target === doc));

  const setShift = (on: boolean) => {
    if (on === shift) return;
    shift = on;
    for (const listener of [...shiftListeners]) listener(on);
  };

  const releaseHeld = () => {
    const releases = [...held.values()];
    held.clear();
    for (const action of releases) handlers.get(action)?.({ action, pressed: false, shift, repeat: false });
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Shift') setShift(true);
    if (!hasFocus(event.target) || event.defaultPrevented || isTextEntry(event.target)) return;
    if (isSlider(event.target) && SLIDER_KEYS.has(event.key)) return;
    if (event.key === 'Enter' && isActivatable(event.target)) return;
    const heldAction = held.get(event.code);
    if (heldAction) {
      // Auto-repeat of a key we hold: ours, nothing to do again.
      event.preventDefault();
      return;
    }
    for (const binding of bindingsFor(event, map)) {
      if (event.repeat && !binding.repeat && !binding.hold) continue;
      const handler = handlers.get(binding.action);
      if (!handler || !handler({ action: binding.action, pressed: true, shift: event.shiftKey, repeat: event.repeat })) continue;
      event.preventDefault();
      if (binding.hold) held.set(event.code, binding.action);
      return;
    }
  };

  const onKeyUp = (event: KeyboardEvent) => {
    if (event.key === 'Shift') setShift(false);
    const action = held.get(event.code);
    if (!action) return;
    held.delete(event.code);
    handlers.get(action)?.({ action, pressed: false, shift: event.shiftKey, repeat: false });
  };

  const onFocusIn = (event: FocusEvent) => {
    owned = inside(event.target);
  };
  const onFocusOut = (event: FocusEvent) => {
    // The focus leaves the viewer (not for another element in it): held keys are let go.
    if (inside(event.target) && !inside(event.relatedTarget)) releaseHeld();
  };
  const onPress = (event: PointerEvent) => {
    owned = inside(event.target);
    setShift(event.shiftKey);
  };
  const onBlur = () => {
    releaseHeld();
    setShift(false);
  };
  const onVisibility = () => {
    if (doc.visibilityState !== 'visible') onBlur();
  };

  view.addEventListener('keydown', onKeyDown);
  view.addEventListener('keyup', onKeyUp);
  view.addEventListener('blur', onBlur);
  doc.addEventListener('focusin', onFocusIn);
  doc.addEventListener('focusout', onFocusOut);
  doc.addEventListener('pointerdown', onPress, true);
  doc.addEventListener('visibilitychange', onVisibility);

  return {
    bind(action, handler) {
      if (!map.some((b) => b.action === action)) throw new Error(`'${action}' is not an action of the key map.`);
      if (handlers.has(action)) throw new Error(`The key action '${action}' already has a handler.`);
      handlers.set(action, handler);
      return () => {
        if (handlers.get(action) !== handler) return;
        handlers.delete(action);
        for (const [code, a] of held) if (a === action) held.delete(code);
      };
    },
    boundContexts() {
      const contexts = new Set<KeyContext>();
      for (const binding of map) if (handlers.has(binding.action)) contexts.add(binding.context);
      return contexts;
    },
    get shift() {
      return shift;
    },
    onShift(listener) {
      shiftListeners.add(listener);
      return () => shiftListeners.delete(listener);
    },
    get focused() {
      return owned || inside(doc.activeElement);
    },
    dispose() {
      releaseHeld();
      handlers.clear();
      shiftListeners.clear();
      view.removeEventListener('keydown', onKeyDown);
      view.removeEventListener('keyup', onKeyUp);
      view.removeEventListener('blur', onBlur);
      doc.removeEventListener('focusin', onFocusIn);
      doc.removeEventListener('focusout', onFocusOut);
      doc.removeEventListener('pointerdown', onPress, true);
      doc.removeEventListener('visibilitychange', onVisibility);
    },
  };
}

/** Whether a key event comes from a control that takes typing (text fields, selects, editable content). */
export function isTextEntry(target: EventTarget | null): boolean {
  const element = target as (HTMLElement & { type?: string }) | null;
  if (!element || typeof element.tagName !== 'string') return false;
  const tag = element.tagName.toLowerCase();
  if (tag === 'textarea' || tag === 'select') return true;
  if (tag === 'input') return !['button', 'checkbox', 'radio', 'range', 'submit', 'reset', 'color', 'file', 'image'].includes((element.type || 'text').toLowerCase());
  return element.isContentEditable === true;
}

/** Keys a focused slider uses itself. */
const SLIDER_KEYS = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'PageUp', 'PageDown', 'Home', 'End']);

function isSlider(target: EventTarget | null): boolean {
  const element = target as (HTMLElement & { type?: string }) | null;
  return !!element && typeof element.tagName === 'string' && element.tagName.toLowerCase() === 'input' && (element.type ?? '').toLowerCase() === 'range';
}

/** A focused button or link: Enter presses it, not a tool. */
export function isActivatable(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (!element || typeof element.tagName !== 'string') return false;
  const tag = element.tagName.toLowerCase();
  return tag === 'button' || tag === 'a' || element.getAttribute('role') === 'button';
}
