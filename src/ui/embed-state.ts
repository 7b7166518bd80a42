import { proxy } from 'valtio/vanilla';
import type { MeetingSnapshot } from '../meeting/meeting';
import type { CallSnapshot } from '../meeting/call';
import type { AnimationRow } from '../viewer/animation-control';
import type { NavigationEventData } from '../viewer/events';
import type { ToolsSnapshot } from '../viewer/tools';

/** Viewer lifecycle (viewer specification section 4): not started -> started -> loading -> ready | failed. */
export type Phase = 'not-started' | 'started' | 'loading' | 'ready' | 'failed';

export const FAILED_TO_LOAD = 'Failed to load the scene.';
/** The product's logo (loading overlay, watermark) and site (watermark link). */
export const DEFAULT_LOGO = '/assets/images/logo.svg';
export const PRODUCT_URL = 'https://parametricos.com';
export const UNEXPECTED_ERROR = 'An unexpected error has occurred!';

export interface Notice {
  id: number;
  text: string;
  /** What raised it ('screenshot', 'fit', ...): the next success of the same action clears it. */
  source?: string;
}

export interface EmbedState {
  phase: Phase;
  /** Downloaded bytes and total over all models (total 0 when unknown). */
  progress: { loaded: number; total: number; modelsDone: number; modelsTotal: number };
  /** The headline of the failure overlay. */
  failureTitle: string;
  /** What went wrong, in a sentence. */
  failureDetail: string;
  sceneName: string;
  thumbnailUrl: string | null;
  /** Non-fatal problems a person should know about (a skipped model, ...). */
  notices: Notice[];
  /** Screenshots include measurements, their labels and pins (default true). */
  screenshotAnnotations: boolean;
  /** The viewer as the panels show it, kept current from the viewer's events (src/ui/viewer-bridge.ts); null before it exists. */
  viewer: ViewerUiState | null;
  /** The meeting as the participants panel shows it (src/ui/meeting-bridge.ts); null when not joined. */
  meeting: MeetingUiState | null;
}

/** What the participants panel shows: the meeting's snapshot and recent join/leave notices. */
export interface MeetingUiState {
  snapshot: MeetingSnapshot;
  /** 'Ada Lovelace joined', 'Alan Turing left', errors: shown a few seconds each. */
  notices: Notice[];
  /** Audio and video of the meeting (src/meeting/rtc.ts). */
  call: CallSnapshot | null;
}

/** What the panels show of the viewer. */
export interface ViewerUiState {
  tools: ToolsSnapshot;
  navigation: NavigationEventData;
  animations: AnimationRow[];
  animationSpeed: number;
}

export function createEmbedState(): EmbedState {
  return proxy<EmbedState>({
    phase: 'not-started',
    progress: { loaded: 0, total: 0, modelsDone: 0, modelsTotal: 0 },
    failureTitle: FAILED_TO_LOAD,
    failureDetail: '',
    sceneName: '',
    thumbnailUrl: null,
    notices: [],
    screenshotAnnotations: true,
    viewer: null,
    meeting: null,
  });
}

let nextNotice = 1;
export function addNotice(state: EmbedState, text: string, source?: string): void {
  // One notice per action: a repeated failure replaces the last one instead of stacking.
  if (source) clearNotices(state, source);
  state.notices.push({ id: nextNotice++, text, ...(source ? { source } : {}) });
}

/** Removes the notices an action raised (it has just succeeded). */
export function clearNotices(state: EmbedState, source: string): void {
  for (let i = state.notices.length - 1; i >= 0; i--) if (state.notices[i].source === source) state.notices.splice(i, 1);
}

/**
 * How long a load shows only the overlay's colour before its logo, progress bar and line appear.
 * A load that is done within a second needs no indicator (one that flashes up and vanishes reads as
 * flicker). And nothing on the screen changes in the meantime: each change (a progress step, a
 * pulse of the logo, a bar's transition) makes the browser composite the page again, which on a
 * weak or software GPU takes 10 to 200 ms of the GPU process each time, taken from the load
 * itself (bench/LOAD-PROFILE.md, "a still overlay"). Shown by ./LoadingOverlay.tsx.
 */
export const LOADING_DETAIL_DELAY_MS = 1000;

/** The loading line before any model is known, and what screen readers hear for the overlay's first second. */
export const LOADING_TEXT = 'Loading the scene…';

/**
 * The loading line: 'Connecting…' until the first byte and the size are known, then models and
 * bytes ('Loading 0 of 1 model · 0.4 of 2.1 MB', kB below a megabyte).
 */
export function progressText(p: EmbedState['progress']): string {
  if (p.modelsTotal === 0) return LOADING_TEXT;
  if (p.loaded === 0 && p.modelsDone === 0) return 'Connecting…';
  const big = Math.max(p.loaded, p.total) >= 1048576;
  const size = (n: number) => (big ? (n / 1048576).toFixed(1) : (n / 1024).toFixed(0));
  const unit = big ? 'MB' : 'kB';
  const bytes = p.total > 0 ? `${size(p.loaded)} of ${size(p.total)} ${unit}` : p.loaded > 0 ? `${size(p.loaded)} ${unit}` : '';
  return `Loading ${p.modelsDone} of ${p.modelsTotal} model${p.modelsTotal === 1 ? '' : 's'}${bytes ? ` · ${bytes}` : ''}`;
}

/** Fraction 0..1 for the progress bar: bytes where known, else finished models. */
export function progressFraction(p: EmbedState['progress']): number {
  if (p.total > 0) return Math.min(1, p.loaded / p.total) * 0.9 + (p.modelsTotal ? (p.modelsDone / p.modelsTotal) * 0.1 : 0);
  return p.modelsTotal ? p.modelsDone / p.modelsTotal : 0;
}
