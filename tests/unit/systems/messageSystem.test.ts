import { describe, expect, it } from 'vitest';
import { enqueueMessage, onMessage } from '../../../src/engine/messages';
import { createViewerWorld } from '../../../src/engine/world';
import { PIPELINE } from '../../../systems';
import { messageSystem } from '../../../systems/messageSystem';
import { navigationSystem } from '../../../systems/navigationSystem';

describe('messageSystem', () => {
  it('applies queued messages and asks for a picture only when there were some', () => {
    const world = createViewerWorld();
    let value = 0;
    onMessage(world, 'set', (_w, payload) => {
      value = payload as number;
    });
    world.render.needsRender = false;
    messageSystem(world);
    expect(world.render.needsRender).toBe(false);
    enqueueMessage(world, { source: 'host', type: 'set', payload: 7 });
    messageSystem(world);
    expect(value).toBe(7);
    expect(world.render.needsRender).toBe(true);
  });

  it('runs before anything moves in the frame', () => {
    expect(PIPELINE.indexOf(messageSystem)).toBeLessThan(PIPELINE.indexOf(navigationSystem));
  });
});
