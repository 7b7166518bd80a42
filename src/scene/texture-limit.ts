import { Cache, ImageBitmapLoader } from 'three';
import type { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { limitedSize, scaleOptions } from './texture-size.ts';

/**
 * A texture size limit for a GLTFLoader (the low tier's QualitySettings.textureLimit): every
 * parse's image loader becomes a LimitedImageBitmapLoader. The plugin runs after the parser is
 * made, so it replaces the parser's loader before any texture loads. Browsers that decode glTF
 * images as <img> elements (Safari) keep their sizes.
 */
export function limitTextures(loader: GLTFLoader, limit: number): void {
  loader.register((parser) => {
    const textures = parser as unknown as { textureLoader: { isImageBitmapLoader?: boolean } };
    if (textures.textureLoader.isImageBitmapLoader) {
      const capped = new LimitedImageBitmapLoader(limit, parser.options.manager);
      capped.setCrossOrigin(parser.options.crossOrigin);
      capped.setRequestHeader(parser.options.requestHeader ?? {});
      const options = parser.options as { withCredentials?: boolean };
      if (options.withCredentials !== undefined) capped.setWithCredentials(options.withCredentials);
      textures.textureLoader = capped;
    }
    return { name: 'texture-limit' };
  });
}

/**
 * three's ImageBitmapLoader (as GLTFLoader sets it up: no premultiplied alpha) whose images larger
 * than the limit are scaled down (halved until they fit, with mipmap filtering: SCALE_QUALITY)
 * before three uploads them.
 */
export class LimitedImageBitmapLoader extends ImageBitmapLoader {
  constructor(
    private readonly limit: number,
    manager?: ConstructorParameters<typeof ImageBitmapLoader>[0],
  ) {
    super(manager);
    this.setOptions({ premultiplyAlpha: 'none' });
  }

  override load(url: string, onLoad?: (bitmap: ImageBitmap) => void, onProgress?: (event: ProgressEvent) => void, onError?: (error: unknown) => void): void {
    super.load(
      url,
      (bitmap) => {
        const size = limitedSize(bitmap.width, bitmap.height, this.limit);
        if (size.width === bitmap.width && size.height === bitmap.height) {
          onLoad?.(bitmap);
          return;
        }
        createImageBitmap(bitmap, scaleOptions(size)).then(
          (smaller) => {
            // A cached bitmap may be handed to another load of the same URL.
            if (!Cache.enabled) bitmap.close();
            onLoad?.(smaller);
          },
          (error) => {
            // The full-size image still draws.
            console.warn(`A texture could not be scaled to ${size.width} x ${size.height} (${(error as Error).message}); it keeps its ${bitmap.width} x ${bitmap.height}.`);
            onLoad?.(bitmap);
          },
        );
      },
      onProgress,
      onError,
    );
  }
}
