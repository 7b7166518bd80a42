import { SCREENSHOT_DEFAULT_FORMAT, SCREENSHOT_FILE_NAME } from '../protocol/constants';

/** Screenshot formats, sizes, file names and the download (the picture itself: ./screenshot.ts). */

export type ScreenshotFormat = 'png' | 'jpeg' | 'webp';
export const SCREENSHOT_FORMATS: readonly ScreenshotFormat[] = ['png', 'jpeg', 'webp'];

/** The largest picture: 64 megapixels (an RGBA copy is 256 MB). */
export const MAX_SCREENSHOT_PIXELS = 8192 * 8192;

export function mimeTypeOf(format: ScreenshotFormat): string {
  return format === 'png' ? 'image/png' : format === 'jpeg' ? 'image/jpeg' : 'image/webp';
}

/** 'high-res-screenshot.png', or the same name with .jpg / .webp. */
export function screenshotFileName(format: ScreenshotFormat = SCREENSHOT_DEFAULT_FORMAT): string {
  const base = SCREENSHOT_FILE_NAME.replace(/\.png$/, '');
  return `${base}.${format === 'jpeg' ? 'jpg' : format}`;
}

/** Saves a blob as a download with the given file name. */
export function downloadBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Give the browser time to start the download before the URL goes.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
