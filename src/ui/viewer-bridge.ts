import type { Viewer } from '../viewer/viewer';
import type { EmbedState } from './embed-state';

/**
 * Keeps the one UI store current from the viewer's events: the tools' snapshot, the navigation
 * state and the animations. The panels read the store (useSnapshot) and act through the viewer's
 * interface; nothing in the UI subscribes to the viewer any other way. Returns the unsubscribe.
 */
export function bindViewerState(viewer: Viewer, state: EmbedState): () => void {
  state.viewer = {
    tools: viewer.tools.getSnapshot(),
    navigation: viewer.navigation.state(),
    animations: viewer.animations.list(),
    animationSpeed: viewer.animations.speed,
  };
  const offs = [
    viewer.events.on('tools', (snapshot) => {
      if (state.viewer) state.viewer.tools = snapshot;
    }),
    viewer.events.on('navigation', (navigation) => {
      if (state.viewer) state.viewer.navigation = navigation;
    }),
    viewer.events.on('animation', () => refreshAnimations(viewer, state)),
    viewer.events.on('models', () => refreshAnimations(viewer, state)),
  ];
  return () => {
    for (const off of offs) off();
  };
}

/** Re-reads the animations (after an event, or a change of speed or loop made by the panel). */
export function refreshAnimations(viewer: Viewer, state: EmbedState): void {
  if (!state.viewer) return;
  state.viewer.animations = viewer.animations.list();
  state.viewer.animationSpeed = viewer.animations.speed;
}
