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
