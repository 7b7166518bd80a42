import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FRAME_STEP_ORDER } from '../../../src/engine/frame-step-order';
import { addFrameStep, runFrameSteps } from '../../../src/engine/frame-steps';
import { createViewerWorld, type FrameSlot } from '../../../src/engine/world';

const ROOT = join(__dirname, '../../..');

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (/\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

describe('frame steps', () => {
  it('runs the steps of a slot in the declared order, whatever order they were added in', () => {
    const world = createViewerWorld();
    const ran: string[] = [];
    const step = (name: string) => ({ name, run: () => ran.push(name) });
    addFrameStep(world, 'overlays', step('host-api'));
    addFrameStep(world, 'overlays', step('meeting: camera pose'));
    const removeGizmo = addFrameStep(world, 'overlays', step('orientation gizmo'));
    addFrameStep(world, 'overlays', step('magnifier'));
    addFrameStep(world, 'helpers', step('comment-pins'));
    addFrameStep(world, 'helpers', step('pick-index-refit'));
    runFrameSteps(world, 'overlays');
    expect(ran).toEqual(['orientation gizmo', 'magnifier', 'host-api', 'meeting: camera pose']);
    ran.length = 0;
    runFrameSteps(world, 'helpers');
    expect(ran).toEqual(['pick-index-refit', 'comment-pins']);
    ran.length = 0;
    removeGizmo();
    removeGizmo();
    runFrameSteps(world, 'overlays');
    expect(ran).toEqual(['magnifier', 'host-api', 'meeting: camera pose']);
  });

  it('keeps steps of one name in the order they were added', () => {
    const world = createViewerWorld();
    const ran: string[] = [];
    addFrameStep(world, 'helpers', { name: 'measurements', run: () => ran.push('first') });
    addFrameStep(world, 'helpers', { name: 'section planes', run: () => ran.push('planes') });
    addFrameStep(world, 'helpers', { name: 'measurements', run: () => ran.push('second') });
    runFrameSteps(world, 'helpers');
    expect(ran).toEqual(['planes', 'first', 'second']);
  });

  it('refuses the same step twice in a slot, and a name its slot does not list', () => {
    const world = createViewerWorld();
    const step = { name: 'pointer', run: () => undefined };
    addFrameStep(world, 'input', step);
    expect(() => addFrameStep(world, 'input', step)).toThrow("The frame step 'pointer' is already in the 'input' slot.");
    expect(() => addFrameStep(world, 'overlays', { name: 'labels', run: () => undefined })).toThrow(
      "The frame step 'labels' has no place in the 'overlays' slot: add it to FRAME_STEP_ORDER",
    );
    expect(() => addFrameStep(world, 'helpers', { name: 'pointer', run: () => undefined })).toThrow("has no place in the 'helpers' slot");
    expect(world.steps.overlays).toHaveLength(0);
  });

  it('lists every step the code adds, in the slot it adds it to, and each name once', () => {
    const added = new Set<string>();
    for (const file of [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'systems'))]) {
      const text = readFileSync(file, 'utf8');
      // addFrameStep(world, 'slot', { name: 'x' ...  or  addFrameStep(world, 'slot', someStep) with `name: 'x'` near it.
      for (const match of text.matchAll(/addFrameStep\([^,]+,\s*'(\w+)',\s*(\{[^}]*?name:\s*'([^']+)'|(\w+))/gs)) {
        const slot = match[1] as FrameSlot;
        let name: string | undefined = match[3];
        if (!name && match[4]) name = new RegExp(`const ${match[4]}\\b[^;]*?name:\\s*'([^']+)'`, 's').exec(text)?.[1];
        expect(name, `${file}: a step whose name this test cannot read`).toBeTruthy();
        expect(FRAME_STEP_ORDER[slot], `${file}: '${name}' in '${slot}'`).toContain(name);
        added.add(`${slot}/${name!}`);
      }
    }
    const declared = Object.entries(FRAME_STEP_ORDER).flatMap(([slot, names]) => names.map((name) => `${slot}/${name}`));
    expect(new Set(declared).size).toBe(declared.length);
    // Nothing declared that the code no longer adds.
    expect([...added].sort()).toEqual([...declared].sort());
  });
});
