import { describe, expect, it } from 'vitest';
import { addNotice, clearNotices, createEmbedState, FAILED_TO_LOAD, progressFraction, progressText } from '../../../src/ui/embed-state';

describe('the embed screen store', () => {
  it('starts not started, with the failure headline of the specification and no viewer', () => {
    const state = createEmbedState();
    expect(state.phase).toBe('not-started');
    expect(state.failureTitle).toBe(FAILED_TO_LOAD);
    expect(FAILED_TO_LOAD).toBe('Failed to load the scene.');
    expect(state.viewer).toBeNull();
  });

  it('notices get ids that never repeat', () => {
    const state = createEmbedState();
    addNotice(state, 'a');
    addNotice(state, 'b');
    const other = createEmbedState();
    addNotice(other, 'c');
    const ids = [...state.notices, ...other.notices].map((n) => n.id);
    expect(new Set(ids).size).toBe(3);
    expect(state.notices.map((n) => n.text)).toEqual(['a', 'b']);
  });

  it('progress: bytes count for 90%, finished models for the rest; models alone when the size is unknown', () => {
    expect(progressFraction({ loaded: 0, total: 0, modelsDone: 0, modelsTotal: 0 })).toBe(0);
    expect(progressFraction({ loaded: 50, total: 100, modelsDone: 0, modelsTotal: 2 })).toBeCloseTo(0.45);
    expect(progressFraction({ loaded: 100, total: 100, modelsDone: 2, modelsTotal: 2 })).toBeCloseTo(1);
    expect(progressFraction({ loaded: 0, total: 0, modelsDone: 1, modelsTotal: 4 })).toBe(0.25);
    expect(progressFraction({ loaded: 500, total: 100, modelsDone: 0, modelsTotal: 1 })).toBeCloseTo(0.9);
  });
});

describe('loading text', () => {
  it('says Connecting until the first bytes and the size are known', () => {
    expect(progressText({ loaded: 0, total: 0, modelsDone: 0, modelsTotal: 1 })).toBe('Connecting…');
    expect(progressText({ loaded: 0, total: 0, modelsDone: 0, modelsTotal: 0 })).toBe('Loading the scene…');
  });

  it('counts models and bytes, in kB below a megabyte', () => {
    expect(progressText({ loaded: 51_200, total: 204_800, modelsDone: 0, modelsTotal: 1 })).toBe('Loading 0 of 1 model · 50 of 200 kB');
    expect(progressText({ loaded: 1_048_576, total: 3 * 1_048_576, modelsDone: 1, modelsTotal: 2 })).toBe('Loading 1 of 2 models · 1.0 of 3.0 MB');
  });
});

describe('notices', () => {
  it("an action's notice replaces its previous one and goes with its next success", () => {
    const state = createEmbedState();
    addNotice(state, 'A model was skipped.');
    addNotice(state, 'The screenshot could not be made: x', 'screenshot');
    addNotice(state, 'The screenshot could not be made: y', 'screenshot');
    expect(state.notices.map((n) => n.text)).toEqual(['A model was skipped.', 'The screenshot could not be made: y']);
    clearNotices(state, 'screenshot');
    expect(state.notices.map((n) => n.text)).toEqual(['A model was skipped.']);
  });
});
