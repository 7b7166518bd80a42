import { describe, expect, it } from 'vitest';
import { addNotice, clearNotices, createEmbedState, progressText } from '../../../src/ui/embed-state';

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
