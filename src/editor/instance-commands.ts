import type { Command, CommandJSON } from './history';

/**
 * Commands on instances of instanced asset groups, keyed by the group's uuid and the instances'
 * stable ids (never slots, which compaction moves). Matrices are group-local, 16 numbers an
 * instance in three.js order, in the order of `ids`. One command covers one edit of any number of
 * instances: a drag of a box-selected set is one undo step.
 */
export interface InstanceApplier {
  /** Writes these matrices live and queues the change to save. */
  setInstances(groupId: string, ids: readonly number[], matrices: Float32Array): void;
  addInstances(groupId: string, ids: readonly number[], matrices: Float32Array): void;
  removeInstances(groupId: string, ids: readonly number[]): void;
}

abstract class InstanceCommand implements Command {
  abstract readonly type: string;
  readonly updatable = false;
  readonly target: string;
  constructor(
    protected readonly applier: InstanceApplier,
    readonly groupId: string,
    readonly ids: readonly number[],
    readonly name: string,
    readonly attribute: string,
  ) {
    this.target = `${groupId}[${ids.length === 1 ? ids[0] : `${ids.length}`}]`;
  }
  abstract execute(): void;
  abstract undo(): void;
  update(): void {
    throw new Error('Instance commands do not merge: a drag is one command already.');
  }
  toJSON(): CommandJSON {
    return { type: this.type, target: this.target, attribute: this.attribute, name: this.name, groupId: this.groupId, ids: [...this.ids] };
  }
}

/** Moves, turns or scales instances: `before` and `after` matrices. */
export class SetInstancesCommand extends InstanceCommand {
  readonly type = 'SetInstances';
  constructor(
    applier: InstanceApplier,
    groupId: string,
    ids: readonly number[],
    readonly before: Float32Array,
    readonly after: Float32Array,
    name: string,
  ) {
    super(applier, groupId, ids, name, 'matrix');
    checkLength(ids, before);
    checkLength(ids, after);
  }
  execute(): void {
    this.applier.setInstances(this.groupId, this.ids, this.after);
  }
  undo(): void {
    this.applier.setInstances(this.groupId, this.ids, this.before);
  }
}

/** Adds instances (a copy); undo removes them. */
export class AddInstancesCommand extends InstanceCommand {
  readonly type = 'AddInstances';
  constructor(
    applier: InstanceApplier,
    groupId: string,
    ids: readonly number[],
    readonly matrices: Float32Array,
    name: string,
  ) {
    super(applier, groupId, ids, name, 'add');
    checkLength(ids, matrices);
  }
  execute(): void {
    this.applier.addInstances(this.groupId, this.ids, this.matrices);
  }
  undo(): void {
    this.applier.removeInstances(this.groupId, this.ids);
  }
}

/** Removes instances; undo brings the same ids back with their matrices. */
export class RemoveInstancesCommand extends InstanceCommand {
  readonly type = 'RemoveInstances';
  constructor(
    applier: InstanceApplier,
    groupId: string,
    ids: readonly number[],
    readonly matrices: Float32Array,
    name: string,
  ) {
    super(applier, groupId, ids, name, 'remove');
    checkLength(ids, matrices);
  }
  execute(): void {
    this.applier.removeInstances(this.groupId, this.ids);
  }
  undo(): void {
    this.applier.addInstances(this.groupId, this.ids, this.matrices);
  }
}

function checkLength(ids: readonly number[], matrices: Float32Array): void {
  if (matrices.length !== ids.length * 16) throw new Error(`${ids.length} instances need ${ids.length * 16} matrix values, not ${matrices.length}.`);
}
