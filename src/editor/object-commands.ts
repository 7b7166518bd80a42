import type { SceneObject } from '../protocol/scene-objects';
import type { Command, CommandJSON } from './history';

/**
 * Commands on scene objects (lights, cameras, groups), keyed by the object's uuid. One command
 * covers adding (before null), removing (after null) and changing an object (both set); it holds
 * whole values, never the three.js object, so it survives the object being made again by an undo.
 */
export interface ObjectApplier {
  /** Puts the object as `data`, or removes it (null); live and queued as a change to save. */
  applyObject(uuid: string, data: SceneObject | null): void;
}

/** The fields that differ between two states of an object ('add' / 'remove' when one is null). */
export function changedFields(before: SceneObject | null, after: SceneObject | null): string {
  if (!before) return 'add';
  if (!after) return 'remove';
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const out: string[] = [];
  for (const key of keys) {
    if (JSON.stringify(before[key as keyof SceneObject]) !== JSON.stringify(after[key as keyof SceneObject])) out.push(key);
  }
  return out.sort().join(',');
}

export class SetObjectCommand implements Command {
  readonly type = 'SetObject';
  readonly target: string;
  readonly attribute: string;
  readonly updatable: boolean;
  readonly name: string;
  constructor(
    private readonly applier: ObjectApplier,
    readonly uuid: string,
    readonly before: SceneObject | null,
    public after: SceneObject | null,
    options: { name?: string; updatable?: boolean } = {},
  ) {
    this.target = uuid;
    this.attribute = changedFields(before, after);
    // Adding and removing never merge.
    this.updatable = (options.updatable ?? true) && before !== null && after !== null;
    const label = (after ?? before)?.name ?? uuid;
    this.name = options.name ?? (before === null ? `Add ${label}` : after === null ? `Remove ${label}` : `Set ${this.attribute} of ${label}`);
  }
  execute(): void {
    this.applier.applyObject(this.uuid, this.after);
  }
  undo(): void {
    this.applier.applyObject(this.uuid, this.before);
  }
  update(next: Command): void {
    this.after = (next as SetObjectCommand).after;
  }
  toJSON(): CommandJSON {
    return { type: this.type, target: this.target, attribute: this.attribute, name: this.name, uuid: this.uuid, before: this.before, after: this.after, updatable: this.updatable };
  }
}
