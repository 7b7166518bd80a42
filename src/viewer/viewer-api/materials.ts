import { ImageLoader, SRGBColorSpace, TextureLoader, type Texture } from 'three';
import type { ModelRecord } from '../../engine/world';
import { MAX_ADDED_TEXTURES, type HostResult, type TextureInfo } from '../../protocol/host-api';
import { TEXTURE_MAP_PROPERTIES } from '../../protocol/mutation';
import { applyMutations } from '../../scene/apply-mutations';
import type { ApiContext, Impl } from '../viewer-api';

type MaterialFunctions = Pick<Impl, 'listMaterials' | 'getMaterial' | 'setMaterial' | 'addTexture' | 'listTextures' | 'updateTexture' | 'removeTexture'>;

/**
 * The host API's materials and textures: a material's properties change as a saved edit does
 * (applyMutations); addTexture's textures are registered in every model's textures under one id.
 */
export function createMaterialFunctions(ctx: ApiContext): { functions: MaterialFunctions; dispose(): void } {
  const { world, lookups } = ctx;
  const { record, material, materialInfo } = lookups;
  let textureCount = 0;
  let textureLoads = 0;
  const textureLoader = new TextureLoader().setCrossOrigin('anonymous');
  const imageLoader = new ImageLoader().setCrossOrigin('anonymous');
  /** addTexture's textures (also registered in every model's textures under the same id), with their images' URLs. */
  const addedTextures = new Map<string, { texture: Texture; url: string }>();
  const loadImage = (url: string) =>
    new Promise<HTMLImageElement>((resolve, reject) =>
      imageLoader.load(url, resolve, undefined, () =>
        reject(new Error(`The image at ${url} could not be loaded (it must exist and allow cross-origin use: CORS).`)),
      ),
    );
  /** The material maps sampling `texture` (or a twin of it in another colour space: the same image source). */
  const usersOf = (texture: Texture, records: Iterable<ModelRecord>) => {
    const users: TextureInfo['usedBy'] = [];
    const textures: Texture[] = [];
    for (const rec of records) {
      for (const [materialId, mat] of rec.materials) {
        for (const key of TEXTURE_MAP_PROPERTIES) {
          const t = (mat as unknown as Record<string, Texture | null | undefined>)[key];
          if (t && t.source === texture.source) {
            users.push({ modelId: rec.modelId, materialId, map: key });
            if (!textures.includes(t)) textures.push(t);
          }
        }
      }
    }
    return { users, textures };
  };
  const textureInfo = (textureId: string, texture: Texture, modelId: string | null): TextureInfo => {
    const added = addedTextures.get(textureId);
    const image = texture.image as { width?: unknown; height?: unknown } | null | undefined;
    const size = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
    return {
      textureId,
      modelId: added ? null : modelId,
      name: texture.name,
      source: added ? 'added' : texture.userData.uploadedTextureId !== undefined ? 'uploaded' : 'model',
      url: added ? added.url : null,
      width: size(image?.width),
      height: size(image?.height),
      usedBy: usersOf(texture, modelId === null || added ? world.models.values() : [record(modelId)]).users,
    };
  };

  const functions: MaterialFunctions = {
    listMaterials: ({ modelId }) => {
      const records = modelId ? [record(modelId)] : [...world.models.values()];
      const out: HostResult<'listMaterials'> = [];
      for (const rec of records) for (const [materialId, mat] of rec.materials) out.push({ modelId: rec.modelId, materialId, name: mat.name, type: mat.type });
      return out;
    },
    getMaterial: ({ modelId, materialId }) => {
      const { rec, mat } = material(modelId, materialId);
      return materialInfo(rec, materialId, mat);
    },
    setMaterial: ({ modelId, materialId, properties }) => {
      const { rec } = material(modelId, materialId);
      const result = applyMutations(world, rec, [
        { type: 'updateMaterial', key: `${materialId}/api`, uuid: 'host-api', createdAt: Date.now(), materialId, properties },
      ]);
      if (result.problems.length > 0) throw new Error(result.problems.join(' '));
      world.render.needsRender = true;
      return materialInfo(rec, materialId, rec.materials.get(materialId)!);
    },
    addTexture: ({ url }) => {
      if (addedTextures.size + textureLoads >= MAX_ADDED_TEXTURES) {
        throw new Error(`At most ${MAX_ADDED_TEXTURES} textures may be added: remove one with removeTexture first.`);
      }
      textureLoads++;
      return new Promise((resolve, reject) => {
        textureLoader.load(
          url,
          (texture) => {
            textureLoads--;
            texture.colorSpace = SRGBColorSpace;
            texture.flipY = false; // glTF's texture coordinates
            const textureId = `api-texture-${++textureCount}`;
            texture.name = textureId;
            addedTextures.set(textureId, { texture, url });
            // Every loaded model may use it in setMaterial's maps.
            for (const rec of world.models.values()) rec.textures.set(textureId, texture);
            resolve({ textureId });
          },
          undefined,
          () => {
            textureLoads--;
            reject(new Error(`The image at ${url} could not be loaded (it must exist and allow cross-origin use: CORS).`));
          },
        );
      });
    },
    listTextures: ({ modelId }) => {
      const records = modelId ? [record(modelId)] : [...world.models.values()];
      const out: TextureInfo[] = [];
      for (const [textureId, { texture }] of addedTextures) out.push(textureInfo(textureId, texture, null));
      for (const rec of records) {
        for (const [textureId, texture] of rec.textures) if (!addedTextures.has(textureId)) out.push(textureInfo(textureId, texture, rec.modelId));
      }
      return out;
    },
    updateTexture: async ({ textureId, url, modelId }) => {
      const find = () => {
        if (modelId !== undefined) {
          const texture = record(modelId).textures.get(textureId);
          if (!texture) throw new Error(`Model '${modelId}' has no texture '${textureId}'.`);
          return texture;
        }
        const added = addedTextures.get(textureId);
        if (!added) throw new Error(`There is no texture '${textureId}' made by addTexture (a model's own texture needs its modelId).`);
        return added.texture;
      };
      find();
      const image = await loadImage(url);
      // Looked up again: the texture (or its model) may have gone while the image loaded.
      const texture = find();
      // Every texture object drawing this image (a colour-space twin shares it) gets the new one;
      // each is freed on the GPU first, so an image of another size gets storage of its size.
      const { textures } = usersOf(texture, world.models.values());
      if (!textures.includes(texture)) textures.push(texture);
      for (const t of textures) t.dispose();
      texture.image = image;
      for (const t of textures) t.needsUpdate = true;
      const added = addedTextures.get(textureId);
      if (added && added.texture === texture) added.url = url;
      world.render.needsRender = true;
      return textureInfo(textureId, texture, modelId ?? null);
    },
    removeTexture: ({ textureId }) => {
      const added = addedTextures.get(textureId);
      if (!added) {
        const own = [...world.models.values()].some((rec) => rec.textures.has(textureId));
        throw new Error(
          own ? `Texture '${textureId}' is a model's own: only textures made by addTexture can be removed.` : `There is no texture '${textureId}'.`,
        );
      }
      const { users } = usersOf(added.texture, world.models.values());
      if (users.length > 0) {
        const u = users[0];
        throw new Error(
          `Texture '${textureId}' is used by ${u.map} of material '${u.materialId}' of model '${u.modelId}'${users.length > 1 ? ` (and ${users.length - 1} more maps)` : ''}: set those maps to another texture or null first.`,
        );
      }
      addedTextures.delete(textureId);
      for (const rec of world.models.values()) if (rec.textures.get(textureId) === added.texture) rec.textures.delete(textureId);
      added.texture.dispose();
      return { ok: true as const };
    },
  };
  return {
    functions,
    dispose() {
      for (const { texture } of addedTextures.values()) texture.dispose();
      addedTextures.clear();
    },
  };
}
