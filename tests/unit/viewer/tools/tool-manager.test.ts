import { describe, expect, it } from 'vitest';
import { createToolManager, TOOL_NAMES, type ToolName } from '../../../../src/viewer/tools/tool-manager';

function setup() {
  const log: string[] = [];
  const changes: [ToolName | null, ToolName | null][] = [];
  const tools = Object.fromEntries(
    TOOL_NAMES.map((name) => [
      name,
      {
        activate: () => void log.push(`on ${name}`),
        deactivate: () => void log.push(`off ${name}`),
      },
    ]),
  ) as unknown as Record<ToolName, { activate(): void; deactivate(): void }>;
  const manager = createToolManager(tools, (active, previous) => changes.push([active, previous]));
  return { manager, log, changes };
}

describe('tool manager', () => {
  it('has the specification names', () => {
    expect(TOOL_NAMES).toEqual(['section-tool', 'length-measure-tool', 'area-measure-tool', 'angle-measure-tool']);
  });

  it('keeps one tool active: activating another turns the first off first', () => {
    const { manager, log, changes } = setup();
    manager.activate('length-measure-tool');
    manager.activate('section-tool');
    expect(manager.active).toBe('section-tool');
    expect(log).toEqual(['on length-measure-tool', 'off length-measure-tool', 'on section-tool']);
    expect(changes).toEqual([
      ['length-measure-tool', null],
      ['section-tool', 'length-measure-tool'],
    ]);
  });

  it('toggles on and off, and activating the active tool changes nothing', () => {
    const { manager, log } = setup();
    expect(manager.toggle('area-measure-tool')).toBe(true);
    manager.activate('area-measure-tool');
    expect(manager.toggle('area-measure-tool')).toBe(false);
    expect(manager.active).toBeNull();
    expect(log).toEqual(['on area-measure-tool', 'off area-measure-tool']);
    manager.deactivate();
    expect(log).toHaveLength(2);
  });

  it('refuses an unknown tool with the list of tools', () => {
    const { manager } = setup();
    expect(() => manager.activate('volume-tool')).toThrow(
      "Unknown tool 'volume-tool': the tools are section-tool, length-measure-tool, area-measure-tool, angle-measure-tool.",
    );
    expect(() => manager.toggle('')).toThrow("Unknown tool ''");
    expect(manager.active).toBeNull();
  });
});
