import type { Page } from '@playwright/test';

/**
 * The client point of the editor's gizmo over selected instances: the centre of their positions
 * (the gizmo's pivot), projected by the viewer's camera. For the instance editor's browser tests
 * (tests/e2e/instances-editor.spec.ts) and the editor bench (bench/editor-city.bench.ts).
 */
export function instanceGizmoCentre(page: Page): Promise<{ x: number; y: number }> {
  return page.evaluate(() => {
    const viewer = (window as any).__viewer.viewer;
    const editor = (window as any).__editor;
    const ids: number[] = editor.gizmo.instances.ids;
    const g = [...viewer.world.instanceGroups.values()].find((r: any) => r.uuid === editor.gizmo.instances.groupId) as any;
    const e = g.attribute.array;
    const sum = [0, 1, 2].map((k) => ids.reduce((n, id) => n + e[g.index.get(id) * 16 + 12 + k], 0) / ids.length);
    const p = viewer.navigation.camera.position.clone().set(sum[0], sum[1], sum[2]).applyMatrix4(g.object.matrixWorld).project(viewer.navigation.camera);
    const rect = viewer.context.renderer.domElement.getBoundingClientRect();
    return { x: rect.left + ((p.x + 1) / 2) * rect.width, y: rect.top + ((1 - p.y) / 2) * rect.height };
  });
}
