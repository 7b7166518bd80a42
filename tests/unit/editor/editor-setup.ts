import { vi } from 'vitest';
import { createEditor, type Editor, type EditorOptions } from '../../../src/editor/editor';
import { runFrameSteps } from '../../../src/engine/frame-steps';
import { createViewerWorld, type ModelRecord, type ViewerWorld } from '../../../src/engine/world';
import type { HitEventData } from '../../../src/viewer/events';
import { syncSystem } from '../../../systems/syncSystem';
import { transformSystem } from '../../../systems/transformSystem';
import { headlessViewer, type HeadlessViewer } from '../../support/headless-viewer';
import { spawnTestModel } from '../../support/test-model';

/**
 * The editor on a viewer without a browser (tests/support/headless-viewer.ts): the real editor,
 * gizmo (three's TransformControls), pointer router, history and queues; synthetic pointer events
 * and key map presses; a renderer that records and draws nothing.
 */
export interface Setup {
  world: ViewerWorld;
  h: HeadlessViewer;
  editor: Editor;
  record: ModelRecord;
  fetch: ReturnType<typeof vi.fn>;
  notices: string[];
  /** One frame: input, transforms, sync, helpers, the renderer's matrix update of helpers, after-draw steps. */
  frame(): void;
}

export function setup(options: Partial<EditorOptions> = {}): Setup {
  const world = createViewerWorld();
  const h = headlessViewer(world);
  const record = spawnTestModel(world, [
    {
      name: 'Pump',
      children: [
        { name: 'Casing', mesh: true },
        { name: 'Cover', mesh: true, position: [0, 1, 0] },
      ],
    },
    { name: 'Base', mesh: true, position: [3, 0, 0] },
  ]);
  h.scene.add(record.root);
  let clock = 0;
  const fetch = vi.fn(async () => new Response(JSON.stringify({ saved: [] }), { status: 200 }));
  const editor = createEditor(h.viewer, {
    sceneId: 's1',
    modelService: 'http://models.test',
    getToken: async () => 'token',
    fetch: fetch as unknown as typeof globalThis.fetch,
    clock: () => (clock += 1000),
    ...options,
  });
  const notices: string[] = [];
  editor.events.on('notice', (n) => notices.push(n.text));
  const frame = () => {
    runFrameSteps(world, 'input');
    transformSystem(world);
    syncSystem(world);
    runFrameSteps(world, 'helpers');
    h.scene.updateMatrixWorld();
    runFrameSteps(world, 'afterDraw');
  };
  frame();
  return { world, h, editor, record, fetch, notices, frame };
}

/** The 'hit' the viewer raises for a click on a node. */
export function hit(record: ModelRecord, nodeId: string): HitEventData {
  return {
    point: { x: 0, y: 0, z: 0 },
    normal: { x: 0, y: 1, z: 0 },
    modelId: record.modelId,
    nodeId,
    nodeName: '',
    materialId: null,
    groupId: null,
    instanceId: null,
  } as unknown as HitEventData;
}
