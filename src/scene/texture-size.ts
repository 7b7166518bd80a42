/**
 * How a texture is scaled to its limit. The scale halves each side until it fits (limitedSize), where
 * mipmap filtering ('medium') averages each 2 x 2 block like a box filter, as sharp as the cubic
 * ('high') at that ratio. It takes a third less CPU: DamagedHelmet's five 2048 px JPEGs scale to
 * 1024 in 110-125 ms against 170-190 in a worker on this machine, on the load's critical path
 * when the tier's limit arrives after the images are decoded.
 */
export const SCALE_QUALITY: ResizeQuality = 'medium';

/**
 * The createImageBitmap options that scale an image to `size` (limitedSize's), as every path here
 * scales: SCALE_QUALITY, and no premultiplied alpha, as GLTFLoader decodes.
 */
export function scaleOptions(size: { width: number; height: number }): ImageBitmapOptions {
  return { resizeWidth: size.width, resizeHeight: size.height, resizeQuality: SCALE_QUALITY, premultiplyAlpha: 'none' };
}

/**
 * The side a texture of `width` x `height` is decoded at under a limit (the low tier's): halved
 * until it fits. Used on the main thread (texture-limit.ts) and in the loader worker (model-images.ts).
 */
export function limitedSize(width: number, height: number, limit: number): { width: number; height: number } {
  let w = width;
  let h = height;
  while (Math.max(w, h) > limit && Math.max(w, h) > 1) {
    w = Math.max(1, Math.round(w / 2));
    h = Math.max(1, Math.round(h / 2));
  }
  return { width: w, height: h };
}
