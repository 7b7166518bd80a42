import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { TEXTURE_CONTENT_TYPES, isUploadedTextureId, type TextureExtension } from '../../protocol/textures.ts';
import { DERIVATIVE_FILE_NAME, StoreError, assertId, assertVersionKey, isValidThumbnailKey, type Store, type ThumbnailExtension } from './common.ts';

/**
 * The files of the store, whatever the database: derivative containers under
 * `{dataDir}/derivatives/{versionKey}/model_file.binz` (the derivative CDN's folder) and scene
 * thumbnails under `{dataDir}/thumbnails/{sceneId}/{hash}.{ext}`, uploaded textures under
 * `{dataDir}/textures/{modelId}/{textureId}.{ext}` (src/protocol/textures.ts). Every write goes through a
 * temporary file and a rename, so a reader (or a crash) never sees half a file.
 */

/** Writes through a temporary file in the same folder and renames it. */
export async function writeAtomic(file: string, data: Uint8Array | string): Promise<void> {
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, data);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

export type FileStore = Pick<Store, 'derivativePath' | 'writeDerivative' | 'thumbnailPath' | 'writeThumbnail' | 'writeTexture' | 'findTexture'>;

const TEXTURE_EXTENSIONS = Object.values(TEXTURE_CONTENT_TYPES);
const TYPE_OF_EXTENSION = Object.fromEntries(Object.entries(TEXTURE_CONTENT_TYPES).map(([type, ext]) => [ext, type]));

export async function openFiles(dataDir: string): Promise<FileStore> {
  const root = resolve(dataDir);
  const derivativesDir = join(root, 'derivatives');
  const thumbnailsDir = join(root, 'thumbnails');
  const texturesDir = join(root, 'textures');
  await Promise.all([derivativesDir, thumbnailsDir, texturesDir].map((dir) => mkdir(dir, { recursive: true })));

  function inside(dir: string, file: string, what: string): string {
    // The key patterns already exclude '.' segments; this keeps the guarantee local.
    if (!file.startsWith(dir + sep)) throw new StoreError('BAD_ID', `Invalid ${what}`);
    return file;
  }

  function derivativePath(versionKey: string): string {
    assertVersionKey(versionKey);
    return inside(derivativesDir, join(derivativesDir, ...versionKey.split('/'), DERIVATIVE_FILE_NAME), `version key '${versionKey}'`);
  }

  function thumbnailPath(key: string): string {
    if (!isValidThumbnailKey(key)) throw new StoreError('BAD_ID', `Invalid thumbnail key '${key}'`);
    return inside(thumbnailsDir, join(thumbnailsDir, ...key.split('/')), `thumbnail key '${key}'`);
  }

  function textureFile(modelId: string, textureId: string, ext: TextureExtension): string {
    assertId('model', modelId);
    if (!isUploadedTextureId(textureId)) throw new StoreError('BAD_ID', `Invalid texture id '${textureId}'`);
    return inside(texturesDir, join(texturesDir, modelId, `${textureId}.${ext}`), `texture '${textureId}'`);
  }

  return {
    derivativePath,
    async writeDerivative(versionKey, bytes) {
      const file = derivativePath(versionKey);
      await mkdir(resolve(file, '..'), { recursive: true });
      await writeAtomic(file, bytes);
    },
    thumbnailPath,
    async writeThumbnail(sceneId: string, bytes: Uint8Array, ext: ThumbnailExtension) {
      assertId('scene', sceneId);
      // Content-addressed: a new image gets a new URL, so it can be cached forever.
      const key = `${sceneId}/${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}.${ext}`;
      const file = thumbnailPath(key);
      await mkdir(resolve(file, '..'), { recursive: true });
      await writeAtomic(file, bytes);
      return key;
    },
    async writeTexture(modelId, bytes, ext) {
      // Content-addressed: the same image is one file and one id, and its URL can be cached forever.
      const textureId = `u-${createHash('sha256').update(bytes).digest('hex').slice(0, 24)}`;
      const file = textureFile(modelId, textureId, ext);
      await mkdir(resolve(file, '..'), { recursive: true });
      await writeAtomic(file, bytes);
      return textureId;
    },
    async findTexture(modelId, textureId) {
      for (const ext of TEXTURE_EXTENSIONS) {
        const file = textureFile(modelId, textureId, ext);
        try {
          if ((await stat(file)).isFile()) return { file, contentType: TYPE_OF_EXTENSION[ext] };
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
        }
      }
      return undefined;
    },
  };
}
