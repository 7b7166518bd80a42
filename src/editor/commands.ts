import type { MaterialProperties, NodeProperties } from '../protocol/mutation';
import type { Command, CommandJSON } from './history';

/**
 * The editor's commands. Each names its target by stable ids and applies through an EditApplier
 * (the editor: live on the entities, and queued as a mutation), so a command holds values, never
 * objects. Undo applies the old values the same way, so an undo is saved like any edit.
 */
export interface EditApplier {
  applyNode(modelId: string, nodeId: string, properties: NodeProperties): void;
  applyMaterial(modelId: string, materialId: string, properties: MaterialProperties): void;
  /** Makes a material (a createMaterial mutation) unless the model has it already. */
  createMaterial?(modelId: string, materialId: string, name: string, properties: MaterialProperties): void;
}

const attributeOf = (properties: object) => Object.keys(properties).sort().join(',');

/**
 * The changed attribute of a material edit: its keys, and for a texture map the fields of its
 * texture info that change ('map.rotation'), so that a scale edit and a rotation edit of one map
 * are two steps, while a slider on one of them still merges.
 */
function materialAttributeOf(before: MaterialProperties, after: MaterialProperties): string {
  const b = before as Record<string, unknown>;
  return Object.keys(after)
    .sort()
    .map((key) => {
      const next = (after as Record<string, unknown>)[key];
      const prev = b[key];
      if (!next || !prev || typeof next !== 'object' || typeof prev !== 'object' || Array.isArray(next)) return key;
      const fields = Object.keys(next).filter((f) => JSON.stringify((next as Record<string, unknown>)[f]) !== JSON.stringify((prev as Record<string, unknown>)[f]));
      return `${key}.${fields.sort().join('+')}`;
    })
    .join(',');
}

/** Changes properties of one node (matrix, visible, name, ...). */
export class SetNodeCommand implements Command {
  readonly type = 'SetNode';
  readonly target: string;
  readonly attribute: string;
  readonly updatable: boolean;
  readonly name: string;
  constructor(
    private readonly applier: EditApplier,
    readonly modelId: string,
    readonly nodeId: string,
    readonly before: NodeProperties,
    public after: NodeProperties,
    options: { name?: string; updatable?: boolean } = {},
  ) {
    this.target = `${modelId}/${nodeId}`;
    this.attribute = attributeOf(after);
    this.updatable = options.updatable ?? true;
    this.name = options.name ?? `Set ${this.attribute} of node ${nodeId}`;
  }
  execute(): void {
    this.applier.applyNode(this.modelId, this.nodeId, this.after);
  }
  undo(): void {
    this.applier.applyNode(this.modelId, this.nodeId, this.before);
  }
  update(next: Command): void {
    this.after = (next as SetNodeCommand).after;
  }
  toJSON(): CommandJSON {
    return { type: this.type, target: this.target, attribute: this.attribute, name: this.name, modelId: this.modelId, nodeId: this.nodeId, before: this.before, after: this.after, updatable: this.updatable };
  }
}

/** Changes properties of one material (colour, roughness, maps, ...). */
export class SetMaterialCommand implements Command {
  readonly type = 'SetMaterial';
  readonly target: string;
  readonly attribute: string;
  readonly updatable: boolean;
  readonly name: string;
  constructor(
    private readonly applier: EditApplier,
    readonly modelId: string,
    readonly materialId: string,
    readonly before: MaterialProperties,
    public after: MaterialProperties,
    options: { name?: string; updatable?: boolean } = {},
  ) {
    this.target = `${modelId}#${materialId}`;
    this.attribute = materialAttributeOf(before, after);
    this.updatable = options.updatable ?? true;
    this.name = options.name ?? `Set ${this.attribute} of material ${materialId}`;
  }
  execute(): void {
    this.applier.applyMaterial(this.modelId, this.materialId, this.after);
  }
  undo(): void {
    this.applier.applyMaterial(this.modelId, this.materialId, this.before);
  }
  update(next: Command): void {
    this.after = (next as SetMaterialCommand).after;
  }
  toJSON(): CommandJSON {
    return { type: this.type, target: this.target, attribute: this.attribute, name: this.name, modelId: this.modelId, materialId: this.materialId, before: this.before, after: this.after, updatable: this.updatable };
  }
}

/**
 * Creates a material (createMaterial). There is no mutation that deletes one, so an undo leaves the
 * material in the model, unused (the step that assigned it is undone with it); a redo finds it
 * there and does not create it twice.
 */
export class CreateMaterialCommand implements Command {
  readonly type = 'CreateMaterial';
  readonly updatable = false;
  readonly target: string;
  readonly attribute = 'create';
  readonly name: string;
  constructor(
    private readonly applier: EditApplier,
    readonly modelId: string,
    readonly materialId: string,
    readonly materialName: string,
    readonly properties: MaterialProperties,
  ) {
    this.target = `${modelId}#${materialId}`;
    this.name = `Create material ${materialName}`;
  }
  execute(): void {
    this.applier.createMaterial?.(this.modelId, this.materialId, this.materialName, this.properties);
  }
  undo(): void {
    // Nothing to take back: an unused material changes nothing that is drawn.
  }
  update(): void {
    throw new Error('Creating a material does not merge.');
  }
  toJSON(): CommandJSON {
    return { type: this.type, target: this.target, attribute: this.attribute, name: this.name, modelId: this.modelId, materialId: this.materialId, materialName: this.materialName, properties: this.properties };
  }
}

/** Several commands as one step: executed in order, undone in reverse. Never merges. */
export class MultiCommand implements Command {
  readonly type = 'Multi';
  readonly attribute = '';
  readonly updatable = false;
  readonly target: string;
  constructor(
    readonly commands: Command[],
    readonly name: string,
  ) {
    this.target = commands.map((c) => c.target).join('|');
  }
  execute(): void {
    for (const command of this.commands) command.execute();
  }
  undo(): void {
    for (let i = this.commands.length - 1; i >= 0; i--) this.commands[i].undo();
  }
  update(): void {
    throw new Error('A multi-command does not merge.');
  }
  toJSON(): CommandJSON {
    return { type: this.type, target: this.target, attribute: '', name: this.name, commands: this.commands.map((c) => c.toJSON()) };
  }
}

/** A command from its JSON (History.fromJSON), or null when its kind is unknown. */
export function reviveCommand(applier: EditApplier, json: CommandJSON, exists: (json: CommandJSON) => boolean = () => true): Command | null {
  if (!exists(json)) return null;
  const options = { name: json.name, updatable: json.updatable as boolean | undefined };
  if (json.type === 'SetNode') return new SetNodeCommand(applier, json.modelId as string, json.nodeId as string, json.before as NodeProperties, json.after as NodeProperties, options);
  if (json.type === 'SetMaterial')
    return new SetMaterialCommand(applier, json.modelId as string, json.materialId as string, json.before as MaterialProperties, json.after as MaterialProperties, options);
  if (json.type === 'CreateMaterial')
    return new CreateMaterialCommand(applier, json.modelId as string, json.materialId as string, json.materialName as string, json.properties as MaterialProperties);
  if (json.type === 'Multi') {
    const parts = (json.commands as CommandJSON[]).map((c) => reviveCommand(applier, c, exists));
    if (parts.some((c) => c === null)) return null;
    return new MultiCommand(parts as Command[], json.name);
  }
  return null;
}
