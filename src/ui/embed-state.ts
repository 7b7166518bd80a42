import { proxy } from 'valtio';
import type { MeetingSnapshot } from '../meeting/meeting';
import type { CallSnapshot } from '../meeting/rtc';
import type { AnimationRow } from '../viewer/animation-control';
import type { NavigationEventData } from '../viewer/events';
import type { ToolsSnapshot } from '../viewer/tools';

/** Viewer lifecycle (viewer specification section 4): not started -> started -> loading -> ready | failed. */
export type Phase = 'not-started' | 'started' | 'loading' | 'ready' | 'failed';

export const FAILED_TO_LOAD = 'Failed to load the scene.';
export const UNEXPECTED_ERROR = 'An unexpected error has occurred!';

export interface Notice {
  id: number;
  text: string;
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
    viewer: null,
    meeting: null,
  });
}

let nextNotice = 1;
export function addNotice(state: EmbedState, text: string): void {
  state.notices.push({ id: nextNotice++, text });
}

/** Fraction 0..1 for the progress bar: bytes where known, else finished models. */
export function progressFraction(p: EmbedState['progress']): number {
  if (p.total > 0) return Math.min(1, p.loaded / p.total) * 0.9 + (p.modelsTotal ? (p.modelsDone / p.modelsTotal) * 0.1 : 0);
  return p.modelsTotal ? p.modelsDone / p.modelsTotal : 0;
}
