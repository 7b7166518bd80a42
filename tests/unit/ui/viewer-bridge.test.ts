import { describe, expect, it } from 'vitest';
import { createEmbedState } from '../../../src/ui/embed-state';
import { bindViewerState, refreshAnimations } from '../../../src/ui/viewer-bridge';
import type { AnimationRow } from '../../../src/viewer/animation-control';
import { Emitter, type NavigationEventData, type ViewerEventMap } from '../../../src/viewer/events';
import type { ToolsSnapshot } from '../../../src/viewer/tools';
import type { Viewer } from '../../../src/viewer/viewer';

function snapshot(hint: string): ToolsSnapshot {
  return { active: null, hint, feedback: null, measurements: [], sections: [], gizmoMode: 'move', sample: null, draftPoints: 0, sampling: false } as unknown as ToolsSnapshot;
}

function row(status: AnimationRow['status']): AnimationRow {
  return { modelId: 'm', modelName: 'M', id: '0', name: 'Run', duration: 2, status, time: 0, loop: true };
}

/** Just what the bridge reads of a viewer: its emitter and the four getters. */
function fakeViewer() {
  const events = new Emitter<ViewerEventMap>();
  const live = { rows: [row('stopped')], speed: 1, navigation: { mode: 'Orbit' } as unknown as NavigationEventData };
  const viewer = {
    events,
    tools: { getSnapshot: () => snapshot('first') },
    navigation: { state: () => live.navigation },
    animations: {
      list: () => live.rows,
      get speed() {
        return live.speed;
      },
    },
  } as unknown as Viewer;
  return { viewer, events, live };
}

describe('bindViewerState: the one UI store follows the viewer', () => {
  it('fills the store from the viewer when bound', () => {
    const { viewer } = fakeViewer();
    const state = createEmbedState();
    expect(state.viewer).toBeNull();
    bindViewerState(viewer, state);
    expect(state.viewer?.tools.hint).toBe('first');
    expect(state.viewer?.navigation).toEqual({ mode: 'Orbit' });
    expect(state.viewer?.animations.map((r) => r.status)).toEqual(['stopped']);
    expect(state.viewer?.animationSpeed).toBe(1);
  });

  it("takes the tools' snapshot and the navigation state from their events", () => {
    const { viewer, events } = fakeViewer();
    const state = createEmbedState();
    bindViewerState(viewer, state);
    events.emit('tools', snapshot('second'));
    events.emit('navigation', { mode: 'Plan' } as unknown as NavigationEventData);
    expect(state.viewer?.tools.hint).toBe('second');
    expect(state.viewer?.navigation).toEqual({ mode: 'Plan' });
  });

  it("re-reads the animations on an 'animation' or 'models' event", () => {
    const { viewer, events, live } = fakeViewer();
    const state = createEmbedState();
    bindViewerState(viewer, state);
    live.rows = [row('playing')];
    events.emit('animation', {} as ViewerEventMap['animation']);
    expect(state.viewer?.animations[0].status).toBe('playing');
    live.rows = [row('playing'), row('stopped')];
    live.speed = 2;
    events.emit('models', {} as ViewerEventMap['models']);
    expect(state.viewer?.animations.length).toBe(2);
    expect(state.viewer?.animationSpeed).toBe(2);
  });

  it('stops following after the unsubscribe', () => {
    const { viewer, events } = fakeViewer();
    const state = createEmbedState();
    const off = bindViewerState(viewer, state);
    off();
    events.emit('tools', snapshot('late'));
    expect(state.viewer?.tools.hint).toBe('first');
  });

  it('refreshAnimations does nothing before the viewer is bound', () => {
    const { viewer } = fakeViewer();
    const state = createEmbedState();
    refreshAnimations(viewer, state);
    expect(state.viewer).toBeNull();
  });
});
