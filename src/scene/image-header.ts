/**
 * An image's pixel size read from its header (JPEG, PNG, WebP), without decoding it: the loader
 * worker decodes an image already scaled to the tier's texture limit when it knows the size
 * (model-images.ts). Null when the header is not understood, or when the image's orientation
 * metadata may swap its two sides as the browser decodes it (a JPEG's EXIF orientation 5-8, or one
 * that cannot be read; any PNG eXIf chunk or WebP EXIF): such an image is decoded at full size and
 * scaled afterwards.
 */
export interface ImageSize {
  width: number;
  height: number;
}

export function imageHeaderSize(bytes: Uint8Array, mimeType: string): ImageSize | null {
  try {
    if (mimeType === 'image/jpeg') return jpegSize(bytes);
    if (mimeType === 'image/png') return pngSize(bytes);
    if (mimeType === 'image/webp') return webpSize(bytes);
  } catch {
    // A header cut short (a DataView read out of range): not understood.
  }
  return null;
}

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const ascii = (bytes: Uint8Array, at: number, length: number) => String.fromCharCode(...bytes.subarray(at, at + length));
const sized = (width: number, height: number): ImageSize | null => (width > 0 && height > 0 ? { width, height } : null);

/**
 * The frame header (SOFn) of a JPEG; null when an EXIF segment anywhere before the scan (the
 * browser reads them all) has an orientation that swaps the sides, or one it cannot read.
 */
function jpegSize(bytes: Uint8Array): ImageSize | null {
  const data = view(bytes);
  if (data.getUint16(0) !== 0xffd8) return null;
  let size: ImageSize | null = null;
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1];
    // Fill bytes before a marker.
    if (marker === 0xff) {
      at++;
      continue;
    }
    // Markers without a segment: TEM, RSTn.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    // The start of the scan: every header segment has been seen.
    if (marker === 0xda) return size;
    if (marker === 0xd9) return null;
    const length = data.getUint16(at + 2);
    if (length < 2) return null;
    if (marker === 0xe1 && ascii(bytes, at + 4, 6) === 'Exif\0\0' && swapsSides(exifOrientation(bytes.subarray(at + 10, at + 2 + length)))) return null;
    // SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC): precision, height, width.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      size = sized(data.getUint16(at + 7), data.getUint16(at + 5));
      if (!size) return null;
    }
    at += 2 + length;
  }
  return null;
}

/** EXIF orientations 5-8 turn the image a quarter; null (unreadable) may too. */
const swapsSides = (orientation: number | null) => orientation === null || orientation >= 5;

/**
 * The orientation tag (0x0112) of an EXIF block's first image directory (a TIFF header, then IFD0);
 * 1 (as stored) when it has none, null when the block cannot be read.
 */
function exifOrientation(tiff: Uint8Array): number | null {
  const data = view(tiff);
  const order = ascii(tiff, 0, 2);
  if (order !== 'II' && order !== 'MM') return null;
  const little = order === 'II';
  if (data.getUint16(2, little) !== 42) return null;
  const directory = data.getUint32(4, little);
  const count = data.getUint16(directory, little);
  for (let i = 0; i < count; i++) {
    const entry = directory + 2 + i * 12;
    if (data.getUint16(entry, little) !== 0x0112) continue;
    // A SHORT, stored in the first two bytes of the value field.
    return data.getUint16(entry + 2, little) === 3 ? data.getUint16(entry + 8, little) : null;
  }
  return 1;
}

/** The IHDR chunk of a PNG; null when an eXIf chunk comes before the image data. */
function pngSize(bytes: Uint8Array): ImageSize | null {
  const data = view(bytes);
  if (data.getUint32(0) !== 0x89504e47 || data.getUint32(4) !== 0x0d0a1a0a || ascii(bytes, 12, 4) !== 'IHDR') return null;
  const size = sized(data.getUint32(16), data.getUint32(20));
  // eXIf must come before IDAT; the chunks in between are few and small.
  let at = 8;
  while (at + 8 <= bytes.length) {
    const type = ascii(bytes, at + 4, 4);
    if (type === 'eXIf') return null;
    if (type === 'IDAT' || type === 'IEND') return size;
    at += 12 + data.getUint32(at);
  }
  return null;
}

/** The first chunk of a WebP (lossy VP8, lossless VP8L or extended VP8X); null when VP8X says EXIF. */
function webpSize(bytes: Uint8Array): ImageSize | null {
  const data = view(bytes);
  if (ascii(bytes, 0, 4) !== 'RIFF' || ascii(bytes, 8, 4) !== 'WEBP') return null;
  const chunk = ascii(bytes, 12, 4);
  if (chunk === 'VP8 ') {
    // The key frame's start code, then 14-bit width and height (2 bits of scale above them).
    if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return null;
    return sized(data.getUint16(26, true) & 0x3fff, data.getUint16(28, true) & 0x3fff);
  }
  if (chunk === 'VP8L') {
    if (bytes[20] !== 0x2f) return null;
    const bits = data.getUint32(21, true);
    return sized((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8X') {
    // Flags: bit 3 EXIF. Then the canvas's width and height minus one, 24 bits each.
    if (bytes[20] & 0x08) return null;
    const u24 = (at: number) => bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16);
    return sized(u24(24) + 1, u24(27) + 1);
  }
  return null;
}
