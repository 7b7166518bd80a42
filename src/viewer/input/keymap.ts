/**
 * The one declared key map: every keyboard shortcut of both specifications, each with the context
 * that owns it. The keyboard (keyboard.ts) matches a key press against it and offers the press to
 * the handlers of its actions in context order; the '?' overlay lists it. Nothing else in the
 * viewer reads keys.
 *
 * A key is written as modifiers and a key joined by '+': 'Mod' is Ctrl, or Cmd on a Mac; 'Shift';
 * then either a key name as KeyboardEvent.key gives it ('z', 'Escape', 'Enter', 'Delete', '?') or a
 * physical key as KeyboardEvent.code gives it ('KeyW', 'ArrowUp'), for keys used by their place on
 * the keyboard (walking), whatever the layout prints on them.
 */
import { SNAP_ROTATE_RAD, SNAP_SCALE, SNAP_TRANSLATE_M } from '../../protocol/editor';

/** Who a shortcut belongs to. */
export type KeyContext = 'overlay' | 'viewer' | 'navigation' | 'viewer-tools' | 'editor' | 'comment-tool';

/**
 * When several contexts bind the same key, the first in this order that takes it wins: an open
 * overlay (the '?' list), a comment being written, then the viewer tools (an area in progress
 * takes Ctrl+Z), then the editor (its history), then navigation, then the viewer's own keys.
 */
export const CONTEXT_ORDER: readonly KeyContext[] = ['overlay', 'comment-tool', 'viewer-tools', 'editor', 'navigation', 'viewer'];

export const CONTEXT_TITLES: Record<KeyContext, string> = {
  overlay: 'Overlays',
  viewer: 'Viewer',
  navigation: 'Navigation (first person)',
  'viewer-tools': 'Measuring and sections',
  editor: 'Editor',
  'comment-tool': 'Comments',
};

export type KeyAction =
  | 'close-overlay'
  | 'help'
  | 'walk-forward'
  | 'walk-back'
  | 'walk-left'
  | 'walk-right'
  | 'walk-up'
  | 'walk-down'
  | 'orbit-left'
  | 'orbit-right'
  | 'orbit-up'
  | 'orbit-down'
  | 'zoom-in'
  | 'zoom-out'
  | 'section-free-rotate'
  | 'tool-cancel'
  | 'tool-finish'
  | 'tool-undo-point'
  | 'tool-delete'
  | 'undo'
  | 'redo'
  | 'save'
  | 'translate-mode'
  | 'rotate-mode'
  | 'scale-mode'
  | 'copy'
  | 'delete'
  | 'box-select'
  | 'gizmo-snap'
  | 'comment-cancel'
  | 'comment-submit';

export interface KeyBinding {
  readonly action: KeyAction;
  readonly context: KeyContext;
  /** Any of these keys (see the module comment for the notation). */
  readonly keys: readonly string[];
  /** What it does, as the '?' overlay says it. */
  readonly label: string;
  /** Held keys: the handler hears the press and the release (walking). */
  readonly hold?: boolean;
  /** Auto-repeat of a held key runs the action again (undo, redo). */
  readonly repeat?: boolean;
}

export const KEY_MAP: readonly KeyBinding[] = [
  { action: 'close-overlay', context: 'overlay', keys: ['Escape'], label: 'Close this list' },
  { action: 'help', context: 'viewer', keys: ['?'], label: 'Show or hide the keyboard shortcuts' },

  { action: 'walk-forward', context: 'navigation', keys: ['KeyW', 'ArrowUp'], label: 'Walk forward (Shift runs)', hold: true },
  { action: 'walk-back', context: 'navigation', keys: ['KeyS', 'ArrowDown'], label: 'Walk back', hold: true },
  { action: 'walk-left', context: 'navigation', keys: ['KeyA', 'ArrowLeft'], label: 'Step left', hold: true },
  { action: 'walk-right', context: 'navigation', keys: ['KeyD', 'ArrowRight'], label: 'Step right', hold: true },
  { action: 'walk-up', context: 'navigation', keys: ['KeyE', 'PageUp'], label: 'Go up', hold: true },
  { action: 'walk-down', context: 'navigation', keys: ['KeyQ', 'PageDown'], label: 'Go down', hold: true },
  // Outside first person the walking keys decline the arrows, and the viewer's context (after
  // navigation in CONTEXT_ORDER) orbits with them.
  { action: 'orbit-left', context: 'viewer', keys: ['ArrowLeft'], label: 'Orbit left (Orbit and Plan)', repeat: true },
  { action: 'orbit-right', context: 'viewer', keys: ['ArrowRight'], label: 'Orbit right (Orbit and Plan)', repeat: true },
  { action: 'orbit-up', context: 'viewer', keys: ['ArrowUp'], label: 'Orbit up (Orbit)', repeat: true },
  { action: 'orbit-down', context: 'viewer', keys: ['ArrowDown'], label: 'Orbit down (Orbit)', repeat: true },
  { action: 'zoom-in', context: 'viewer', keys: ['+', '='], label: 'Zoom in', repeat: true },
  { action: 'zoom-out', context: 'viewer', keys: ['-'], label: 'Zoom out', repeat: true },

  { action: 'tool-cancel', context: 'viewer-tools', keys: ['Escape'], label: 'Cancel the measurement or plane in progress; with none, turn the tool off' },
  { action: 'tool-finish', context: 'viewer-tools', keys: ['Enter'], label: 'Finish an area; keep a new section plane' },
  { action: 'tool-undo-point', context: 'viewer-tools', keys: ['Mod+z'], label: 'Remove the last point of the measurement in progress (an area keeps 3)', repeat: true },
  { action: 'tool-delete', context: 'viewer-tools', keys: ['Delete', 'Backspace'], label: 'Delete the selected measurement or section plane' },
  { action: 'section-free-rotate', context: 'viewer-tools', keys: ['Shift'], label: 'Hold while tilting a section plane: turn freely instead of in 15° steps', hold: true },

  { action: 'undo', context: 'editor', keys: ['Mod+z'], label: 'Undo', repeat: true },
  { action: 'redo', context: 'editor', keys: ['Mod+Shift+z'], label: 'Redo', repeat: true },
  { action: 'save', context: 'editor', keys: ['Mod+s'], label: 'Save' },
  // Chrome never gives a page Ctrl+T (a new tab) in a normal window (BROWSER_RESERVED_KEYS): T
  // alone does the same everywhere.
  { action: 'translate-mode', context: 'editor', keys: ['Mod+t', 'KeyT'], label: 'Move (translate) with the gizmo' },
  { action: 'rotate-mode', context: 'editor', keys: ['Mod+r'], label: 'Rotate with the gizmo' },
  // The specification gives S to both save and scale; scale takes Shift so the two never clash.
  { action: 'scale-mode', context: 'editor', keys: ['Mod+Shift+s'], label: 'Scale with the gizmo' },
  { action: 'copy', context: 'editor', keys: ['Mod+c'], label: 'Copy the selected object' },
  { action: 'delete', context: 'editor', keys: ['Delete', 'Backspace'], label: 'Delete the selected object or instances' },
  { action: 'box-select', context: 'editor', keys: ['KeyB'], label: 'Box select: drag a rectangle to select the instances inside it (B again to stop)' },
  {
    action: 'gizmo-snap',
    context: 'editor',
    keys: ['Shift'],
    label: `Hold while dragging the gizmo: move in ${SNAP_TRANSLATE_M} m steps, turn in ${Math.round((SNAP_ROTATE_RAD * 180) / Math.PI)}° steps, scale in ${SNAP_SCALE} steps`,
    hold: true,
  },

  { action: 'comment-cancel', context: 'comment-tool', keys: ['Escape'], label: 'Close the comment being written' },
  { action: 'comment-submit', context: 'comment-tool', keys: ['Mod+Enter'], label: 'Post the comment' },
];

/**
 * Keys a browser keeps for itself in a normal window: Chrome (BrowserCommandController::
 * IsReservedCommandOrKey) never hands a page new tab, new window, close tab or window, reopen tab,
 * next or previous tab, or quit; Firefox and Safari behave alike for these. A binding may list
 * one (the specification's Ctrl+T) only beside a key that reaches the page; the overlay says so.
 */
export const BROWSER_RESERVED_KEYS: readonly string[] = ['Mod+t', 'Mod+n', 'Mod+w', 'Mod+Shift+t', 'Mod+Shift+n', 'Mod+Shift+w', 'Mod+Shift+q', 'Mod+Tab', 'Mod+Shift+Tab'];

/** Whether the browser keeps this key of the map for itself (see BROWSER_RESERVED_KEYS). */
export function reservedByBrowser(key: string): boolean {
  const chord = parseChord(key);
  return BROWSER_RESERVED_KEYS.some((k) => {
    const r = parseChord(k);
    return r.mod === chord.mod && r.shift === chord.shift && r.key === chord.key && r.code === chord.code;
  });
}

/** A parsed key of the map. */
export interface Chord {
  mod: boolean;
  shift: boolean;
  /** KeyboardEvent.code to match (physical keys), or null. */
  code: string | null;
  /** KeyboardEvent.key to match, lower case for letters, or null. */
  key: string | null;
}

const PHYSICAL = /^(Key[A-Z]|Digit[0-9]|Arrow(Up|Down|Left|Right)|Page(Up|Down))$/;

export function parseChord(text: string): Chord {
  const parts = text.split('+');
  // A key of '+' itself ('Mod++') leaves an empty last part.
  const last = parts.pop() || '+';
  const mod = parts.includes('Mod');
  const shift = parts.includes('Shift');
  for (const p of parts) if (p !== 'Mod' && p !== 'Shift' && p !== '') throw new Error(`Unknown modifier '${p}' in the key '${text}'.`);
  if (PHYSICAL.test(last)) return { mod, shift, code: last, key: null };
  return { mod, shift, code: null, key: last.length === 1 ? last.toLowerCase() : last };
}

/** What the matcher needs of a KeyboardEvent. */
export type KeyEventLike = Pick<KeyboardEvent, 'key' | 'code' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>;

/**
 * Whether a key event is this chord. Ctrl or Cmd must be held exactly when the chord has Mod, and
 * Alt never. Shift is compared only for Mod chords (Ctrl+Z undoes, Ctrl+Shift+Z redoes); elsewhere
 * it is free, so Shift can run while walking and '?' (Shift+/ on many layouts) is just '?'.
 */
export function matchesChord(chord: Chord, event: KeyEventLike): boolean {
  const mod = event.ctrlKey || event.metaKey;
  if (mod !== chord.mod || event.altKey) return false;
  if (chord.mod && event.shiftKey !== chord.shift) return false;
  if (chord.code !== null) return event.code === chord.code;
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  return key === chord.key;
}

const PARSED = new Map<KeyBinding, Chord[]>(KEY_MAP.map((b) => [b, b.keys.map(parseChord)]));

/** The bindings a key event matches, in context order (the first to take it wins). */
export function bindingsFor(event: KeyEventLike, map: readonly KeyBinding[] = KEY_MAP): KeyBinding[] {
  const out: KeyBinding[] = [];
  for (const context of CONTEXT_ORDER) {
    for (const binding of map) {
      if (binding.context !== context) continue;
      const chords = PARSED.get(binding) ?? binding.keys.map(parseChord);
      if (chords.some((c) => matchesChord(c, event))) out.push(binding);
    }
  }
  return out;
}

/** A key as people read it: 'Ctrl+Shift+Z' ('⌘+Shift+Z' on a Mac), 'W', '↑', 'Esc'. */
export function formatKey(text: string, mac = false): string {
  const chord = parseChord(text);
  const names: string[] = [];
  if (chord.mod) names.push(mac ? '⌘' : 'Ctrl');
  if (chord.shift) names.push('Shift');
  names.push(chord.code !== null ? CODE_NAMES[chord.code] ?? chord.code.replace(/^(Key|Digit)/, '') : KEY_NAMES[chord.key!] ?? (chord.key!.length === 1 ? chord.key!.toUpperCase() : chord.key!));
  return names.join('+');
}

const CODE_NAMES: Record<string, string> = { ArrowUp: '↑', ArrowDown: '↓', ArrowLeft: '←', ArrowRight: '→', PageUp: 'Page Up', PageDown: 'Page Down' };
const KEY_NAMES: Record<string, string> = { Escape: 'Esc', Delete: 'Delete', Backspace: 'Backspace', Enter: 'Enter' };

/** The key map grouped by context in CONTEXT_ORDER (the overlay's sections); only `contexts` if given. */
export function keyMapByContext(contexts?: ReadonlySet<KeyContext>): { context: KeyContext; title: string; bindings: KeyBinding[] }[] {
  const order: KeyContext[] = ['viewer', 'overlay', 'navigation', 'viewer-tools', 'editor', 'comment-tool'];
  return order
    .filter((c) => !contexts || contexts.has(c))
    .map((context) => ({ context, title: CONTEXT_TITLES[context], bindings: KEY_MAP.filter((b) => b.context === context) }))
    .filter((group) => group.bindings.length > 0);
}
