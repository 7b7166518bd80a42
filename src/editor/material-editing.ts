import { nodeEid } from '../engine/stable-ids';
import type { ViewerWorld } from '../engine/world';
import type { MaterialProperties } from '../protocol/mutation';
import { loadUploadedTextures, uploadedTextureIds, type DecodeImage } from '../scene/uploaded-textures';
import { CreateMaterialCommand, MultiCommand, SetMaterialCommand, SetNodeCommand, type EditApplier } from './commands';
import type { History } from './history';
import { recordOf } from './model-edits';
import { newUuid, propertiesProblem } from './mutation-queue';
import { materialCopyOf, readMaterialProperties, readNodeProperties } from './read-properties';

export interface MaterialEditingDeps {
  world: ViewerWorld;
  history: History;
  applier: EditApplier;
  /** Where uploaded textures are loaded from. */
  modelService: string;
  decodeImage?: DecodeImage;
  /** Still enabled when a texture a change needs has loaded. */
  enabled(): boolean;
  notice(text: string): void;
}

export interface MaterialEditing {
  /** Changes listed properties of a material as one undoable step; a map's uploaded texture is loaded first. */
  set(modelId: string, materialId: string, properties: MaterialProperties, name?: string): void;
  /** Creates a material (a copy of `from`'s values, then `properties`), assigned to `nodeId` when given: one step. */
  create(modelId: string, options: { name: string; from?: string; properties?: MaterialProperties; nodeId?: string }): string;
}

/** The editor's material commands: setting a material's values and creating (and assigning) one. */
export function createMaterialEditing(deps: MaterialEditingDeps): MaterialEditing {
  const { world, history, applier, notice } = deps;
  return {
    set(modelId, materialId, properties, name) {
      const problem = propertiesProblem('material', properties as Record<string, unknown>);
      if (problem) return notice(`The edit was not made: ${problem}`);
      const execute = () => {
        const before = readMaterialProperties(recordOf(world, modelId), materialId, Object.keys(properties));
        history.execute(new SetMaterialCommand(applier, modelId, materialId, before, properties, { name }));
      };
      // A map naming an uploaded texture this model has not loaded yet: load it first.
      const model = recordOf(world, modelId);
      const missing = uploadedTextureIds([{ type: 'updateMaterial', properties }]).filter((id) => !model.textures.has(id));
      if (missing.length === 0) return execute();
      void loadUploadedTextures(deps.modelService, model, [{ type: 'updateMaterial', properties }], { decode: deps.decodeImage }).then((problems) => {
        if (problems.length > 0) {
          for (const text of problems) notice(`The edit was not made: ${text}`);
          return;
        }
        if (deps.enabled()) execute();
      });
    },
    create(modelId, { name, from, properties = {}, nodeId }) {
      const model = recordOf(world, modelId);
      const materialId = `m-${newUuid().slice(0, 12)}`;
      const copied = from ? materialCopyOf(model, from) : {};
      const create = new CreateMaterialCommand(applier, modelId, materialId, name, { ...copied, ...properties, name });
      if (!nodeId) {
        history.execute(create);
        return materialId;
      }
      const before = readNodeProperties(world, model, nodeId, ['material']);
      const assign = new SetNodeCommand(applier, modelId, nodeId, before, { material: materialId }, { name: `Assign ${name}`, updatable: false });
      history.execute(new MultiCommand([create, assign], `New material ${name} on ${world.objects[nodeEid(model, nodeId)]?.name || nodeId}`));
      return materialId;
    },
  };
}
