/**
 * Lifecycle messages to the page that embeds the viewer (DESIGN.md section 4.3): 'viewerinit' when
 * the viewer starts and 'viewerready' when the scene is shown. Posted to any origin, as the
 * specification says; they carry nothing private.
 */
export type LifecycleMessage = { type: 'viewerinit'; sceneId: string } | { type: 'viewerready'; sceneId: string };

export function postToHost(message: LifecycleMessage, target: Window | null = typeof window !== 'undefined' ? window.parent : null): void {
  if (!target) return;
  target.postMessage(message, '*');
}
