/**
 * The viewer's tools by their specification names (viewer specification section 3, "Tool names").
 * One is active at a time; activating one turns the previous one off; each toggles on and off.
 */
export const TOOL_NAMES = ['section-tool', 'length-measure-tool', 'area-measure-tool', 'angle-measure-tool'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export function isToolName(name: unknown): name is ToolName {
  return typeof name === 'string' && (TOOL_NAMES as readonly string[]).includes(name);
}

export function unknownToolError(name: unknown): Error {
  return new Error(`Unknown tool '${String(name)}': the tools are ${TOOL_NAMES.join(', ')}.`);
}

/** What the manager needs of a tool. */
export interface Tool {
  activate(): void;
  /** Turns the tool off: a measurement or creation in progress is cancelled. */
  deactivate(): void;
}

export interface ToolManager {
  readonly active: ToolName | null;
  /** Turns a tool on (the active one off first). Throws for an unknown name. */
  activate(name: string): void;
  /** Turns the active tool off (nothing when none is on). */
  deactivate(): void;
  /** Turns a tool on, or off when it is the active one. Returns whether it is now on. */
  toggle(name: string): boolean;
}

export function createToolManager(
  tools: Record<ToolName, Tool>,
  onChange: (active: ToolName | null, previous: ToolName | null) => void,
): ToolManager {
  let active: ToolName | null = null;
  const set = (next: ToolName | null) => {
    if (next === active) return;
    const previous = active;
    if (previous) {
      active = null;
      tools[previous].deactivate();
    }
    active = next;
    if (next) tools[next].activate();
    onChange(active, previous);
  };
  return {
    get active() {
      return active;
    },
    activate(name) {
      if (!isToolName(name)) throw unknownToolError(name);
      set(name);
    },
    deactivate() {
      set(null);
    },
    toggle(name) {
      if (!isToolName(name)) throw unknownToolError(name);
      set(active === name ? null : name);
      return active === name;
    },
  };
}
