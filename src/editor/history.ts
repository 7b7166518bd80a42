import { UNDO_MERGE_WINDOW_MS } from '../protocol/constants';

/**
 * Undo and redo (editor specification section 4), after the three.js editor's Commands + History
 * but keyed by stable ids, never by object references: a command names what it changes by
 * `target` (modelId + nodeId / materialId, or a scene object's uuid), so it survives a reload of
 * the objects and serialises with toJSON.
 *
 * A new command clears the redo list. Consecutive updatable commands on the same target, type and
 * attribute merge when less than 500 ms apart (a slider, a typed number): the earlier one takes the
 * later one's new value and stays one step.
 */
export interface Command {
  /** The kind of change ('SetNode', 'SetMaterial', 'Multi', ...). */
  readonly type: string;
  /** What it changes, by stable id ('model/node', 'model#material', a uuid). */
  readonly target: string;
  /** The changed attribute ('matrix', 'color', ...); merging compares it. */
  readonly attribute: string;
  /** Whether consecutive commands like it may merge. */
  readonly updatable: boolean;
  /** What the history panel shows. */
  readonly name: string;
  execute(): void;
  undo(): void;
  /** Takes the later command's new value (called only when History.execute merges the two). */
  update(next: Command): void;
  toJSON(): CommandJSON;
}

export interface CommandJSON {
  type: string;
  target: string;
  attribute: string;
  name: string;
  [field: string]: unknown;
}

export interface HistoryStep {
  id: number;
  name: string;
  /** true: in the undo list; false: undone (in the redo list). */
  done: boolean;
}

export interface HistoryOptions {
  /** Milliseconds now (a fake clock in tests). */
  clock?: () => number;
  mergeWindowMs?: number;
}

export class History {
  private undos: { id: number; command: Command }[] = [];
  private redos: { id: number; command: Command }[] = [];
  private lastTime = -Infinity;
  private nextId = 1;
  private readonly listeners = new Set<() => void>();
  private readonly clock: () => number;
  private readonly window: number;

  constructor(options: HistoryOptions = {}) {
    this.clock = options.clock ?? (() => performance.now());
    this.window = options.mergeWindowMs ?? UNDO_MERGE_WINDOW_MS;
  }

  /** Runs a command and records it (merged into the last one when the rules allow). */
  execute(command: Command): void {
    const now = this.clock();
    const last = this.undos[this.undos.length - 1]?.command;
    const merge =
      last !== undefined &&
      this.redos.length === 0 &&
      last.updatable &&
      command.updatable &&
      last.type === command.type &&
      last.target === command.target &&
      last.attribute === command.attribute &&
      now - this.lastTime < this.window;
    if (merge) {
      last.update(command);
      last.execute();
    } else {
      command.execute();
      this.undos.push({ id: this.nextId++, command });
    }
    this.lastTime = now;
    this.redos = [];
    this.changed();
  }

  get canUndo(): boolean {
    return this.undos.length > 0;
  }

  get canRedo(): boolean {
    return this.redos.length > 0;
  }

  undo(): Command | undefined {
    const entry = this.undos.pop();
    if (!entry) return undefined;
    entry.command.undo();
    this.redos.push(entry);
    // An undo ends a merge run: the next edit is a step of its own.
    this.lastTime = -Infinity;
    this.changed();
    return entry.command;
  }

  redo(): Command | undefined {
    const entry = this.redos.pop();
    if (!entry) return undefined;
    entry.command.execute();
    this.undos.push(entry);
    this.lastTime = -Infinity;
    this.changed();
    return entry.command;
  }

  /** Every step, oldest first: the done ones, then the undone ones in the order redo would run them. */
  steps(): HistoryStep[] {
    return [
      ...this.undos.map((e) => ({ id: e.id, name: e.command.name, done: true })),
      ...[...this.redos].reverse().map((e) => ({ id: e.id, name: e.command.name, done: false })),
    ];
  }

  /**
   * Undoes or redoes until step `id` is the last done one (id 0: everything undone). Returns
   * false for an unknown id.
   */
  jumpTo(id: number): boolean {
    if (id !== 0 && !this.undos.some((e) => e.id === id) && !this.redos.some((e) => e.id === id)) return false;
    if (id === 0) {
      while (this.undos.length) this.undo();
      return true;
    }
    while (this.undos.length && this.undos[this.undos.length - 1].id !== id && !this.redos.some((e) => e.id === id)) this.undo();
    while (this.redos.length && this.undos[this.undos.length - 1]?.id !== id) this.redo();
    return true;
  }

  clear(): void {
    this.undos = [];
    this.redos = [];
    this.lastTime = -Infinity;
    this.changed();
  }

  toJSON(): { undos: CommandJSON[]; redos: CommandJSON[] } {
    return { undos: this.undos.map((e) => e.command.toJSON()), redos: this.redos.map((e) => e.command.toJSON()) };
  }

  /**
   * Rebuilds the lists from toJSON's output; `revive` makes a command from its JSON, or returns null
   * when its target no longer exists (that step is left out, with the count returned, never a
   * command that would fail on undo).
   */
  fromJSON(json: { undos: CommandJSON[]; redos: CommandJSON[] }, revive: (json: CommandJSON) => Command | null): { dropped: number } {
    let dropped = 0;
    const load = (list: CommandJSON[]) =>
      list.flatMap((j) => {
        const command = revive(j);
        if (!command) {
          dropped++;
          return [];
        }
        return [{ id: this.nextId++, command }];
      });
    this.undos = load(json.undos ?? []);
    this.redos = load(json.redos ?? []);
    this.lastTime = -Infinity;
    this.changed();
    return { dropped };
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
