/**
 * Gain-map JPEG writer ('hdrjpeg'): an Ultra HDR file as three.js' UltraHDRLoader reads it.
 *
 *   primary JPEG: SOI, APP0 JFIF, APP1 XMP (GContainer directory: Primary + GainMap),
 *                 APP2 MPF (two MP entries: primary size/offset, gain map size/offset), SDR image
 *   gain map JPEG: SOI, APP0 JFIF, APP1 XMP (hdrgm: gain map metadata), gain map image
 *
 * What the loader does with it (three r187, examples/jsm/loaders/UltraHDRLoader.js), and so what
 * we encode for:
 *  - It takes the metadata from the XMP hdrgm attributes. (Its ISO 21496-1 branch compares the
 *    namespace against the segment's length bytes, so a standard ISO block is never recognised;
 *    we write none.) The MPF entries locate the images: the gain map offset is relative to the MPF
 *    TIFF header, as the MPF standard says.
 *  - For every channel it computes v = (sdr + offsetSdr) * 2^(w * g) - offsetHdr on the 0..255
 *    sRGB-encoded value (not on linear light as the Ultra HDR recovery formula does), with
 *    g = GainMapMin + (GainMapMax - GainMapMin) * gain^(1 / Gamma), offsets = XMP offset * 64 and
 *    a display weight w = clamp((log2(1.8^(HDRCapacityMax / 2)) - HDRCapacityMin) /
 *    (HDRCapacityMax - HDRCapacityMin)), about 0.424 with HDRCapacityMin 0; then linear =
 *    sRGB-decode(v / 255), continued above 1 by the same power curve (a table truncates v to an
 *    integer between 10.3 and 1024).
 *  - So the gain map is computed against that reconstruction, from the SDR image as it decodes
 *    after JPEG compression, with GainMapMin/Max divided by w: three.js recovers our HDR values
 *    (within the gain map's 8-bit and JPEG quantisation). A reader that follows the Ultra HDR
 *    formula shows the same SDR image but a different HDR rendition; our viewer is the reader.
 *
 * The SDR image is the HDR image clipped at 1 (exposure 1).
 */
import jpeg from 'jpeg-js';

export interface GainMapJpegOptions {
  /** JPEG quality of the SDR image, 1-100. */
  quality?: number;
  /** JPEG quality of the gain map, 1-100 (higher: the gain map carries the HDR range). */
  gainMapQuality?: number;
}

/** The offset added to SDR and HDR values before the gain (in 0..255 encoded units; XMP 1/64). */
const OFFSET = 1;
const XMP_OFFSET = OFFSET / 64;
const XMP_NAMESPACE = 'http://ns.adobe.com/xap/1.0/\0';

/** three's UltraHDRLoader's display weight for the capacities it reads. */
export function threeGainWeight(hdrCapacityMin: number, hdrCapacityMax: number): number {
  const maxDisplayBoost = 1.8 ** (hdrCapacityMax * 0.5);
  const w = (Math.log2(maxDisplayBoost) - hdrCapacityMin) / (hdrCapacityMax - hdrCapacityMin);
  return Math.min(Math.max(w, 0), 1);
}

/** Linear light -> the loader's 0..255 sRGB-encoded scale, continued above 255 for HDR values. */
export function encodeSrgb255(linear: number): number {
  if (!(linear > 0)) return 0;
  if (linear < 0.0031308) return linear / 0.000303527;
  return (linear ** (1 / 2.4) - 0.0521327014) / 0.003717127;
}

export interface GainMapJpeg {
  bytes: Uint8Array;
  /** The metadata as written (log2 gains already divided by the loader's weight). */
  metadata: { gainMapMin: number; gainMapMax: number; hdrCapacityMin: number; hdrCapacityMax: number; offset: number; weight: number };
  sdrBytes: number;
  gainMapBytes: number;
}

/** Encodes `rgb` (width * height * 3 linear floats, top row first) as an Ultra HDR JPEG. */
export function encodeGainMapJpeg(width: number, height: number, rgb: Float32Array, options: GainMapJpegOptions = {}): GainMapJpeg {
  const n = width * height;
  if (rgb.length !== n * 3) throw new Error(`encodeGainMapJpeg: expected ${n * 3} values, got ${rgb.length}`);
  const quality = options.quality ?? 90;
  const gainMapQuality = options.gainMapQuality ?? 95;

  // 1. The SDR image: the HDR image clipped at 1, sRGB-encoded.
  const sdr = new Uint8Array(n * 4);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) sdr[i * 4 + c] = Math.round(encodeSrgb255(Math.min(rgb[i * 3 + c], 1)));
    sdr[i * 4 + 3] = 255;
  }
  const sdrJpeg = new Uint8Array(jpeg.encode({ width, height, data: sdr }, quality).data);
  // The gain is computed against the SDR values as they come out of the JPEG, not as they went in.
  const decoded = jpeg.decode(sdrJpeg, { useTArray: true, formatAsRGBA: true }).data;

  // 2. The log2 gain of every sample, in the loader's encoded domain.
  const gains = new Float32Array(n * 3);
  let gMin = Infinity;
  let gMax = -Infinity;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) {
      let target = encodeSrgb255(rgb[i * 3 + c]);
      // The loader's table truncates values in [10.3, 1024) to an integer: aim at the middle.
      if (target >= 10.31475 && target < 1023.5) target += 0.5;
      const g = Math.log2((target + OFFSET) / (decoded[i * 4 + c] + OFFSET));
      gains[i * 3 + c] = g;
      if (g < gMin) gMin = g;
      if (g > gMax) gMax = g;
    }
  }
  if (gMax - gMin < 1e-3) gMax = gMin + 1e-3;

  // 3. Metadata: capacities in linear stops (about 2.4x the encoded-domain gain), and the gains
  //    divided by the weight the loader multiplies them with (computed from the numbers as written).
  const hdrCapacityMin = 0;
  const hdrCapacityMax = Number(Math.min(Math.max(gMax * 2.4, 0.1), 15).toFixed(6));
  const weight = threeGainWeight(hdrCapacityMin, hdrCapacityMax);
  const storedMin = Number((gMin / weight).toPrecision(12));
  const storedMax = Number((gMax / weight).toPrecision(12));
  const lo = storedMin * weight;
  const range = storedMax * weight - lo;

  // 4. The gain map image.
  const gainMap = new Uint8Array(n * 4);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) gainMap[i * 4 + c] = Math.min(255, Math.max(0, Math.round(((gains[i * 3 + c] - lo) / range) * 255)));
    gainMap[i * 4 + 3] = 255;
  }
  const gainJpeg = new Uint8Array(jpeg.encode({ width, height, data: gainMap }, gainMapQuality).data);

  const gainXmp = xmpSegment(
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
      '<rdf:Description xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0" ' +
      `hdrgm:BaseRenditionIsHDR="False" hdrgm:GainMapMin="${storedMin}" hdrgm:GainMapMax="${storedMax}" hdrgm:Gamma="1" ` +
      `hdrgm:OffsetSDR="${XMP_OFFSET}" hdrgm:OffsetHDR="${XMP_OFFSET}" hdrgm:HDRCapacityMin="${hdrCapacityMin}" hdrgm:HDRCapacityMax="${hdrCapacityMax}"/>` +
      '</rdf:RDF></x:xmpmeta>',
  );
  const gainFile = insertAfterApp0(gainJpeg, [gainXmp]);

  const primaryXmp = xmpSegment(
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
      '<rdf:Description xmlns:Container="http://ns.google.com/photos/1.0/container/" xmlns:Item="http://ns.google.com/photos/1.0/container/item/" ' +
      'xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0"><Container:Directory><rdf:Seq>' +
      '<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>' +
      `<rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="${gainFile.length}"/></rdf:li>` +
      '</rdf:Seq></Container:Directory></rdf:Description></rdf:RDF></x:xmpmeta>',
  );
  // The MPF segment's size does not depend on the values in it: place it, then fill it in.
  const mpf = mpfSegment(0, 0, 0);
  const primary = insertAfterApp0(sdrJpeg, [primaryXmp, mpf]);
  const mpfAt = app0End(sdrJpeg) + primaryXmp.length;
  const tiffHeaderAt = mpfAt + 8;
  primary.set(mpfSegment(primary.length, gainFile.length, primary.length - tiffHeaderAt), mpfAt);

  const bytes = new Uint8Array(primary.length + gainFile.length);
  bytes.set(primary, 0);
  bytes.set(gainFile, primary.length);
  return {
    bytes,
    metadata: { gainMapMin: storedMin, gainMapMax: storedMax, hdrCapacityMin, hdrCapacityMax, offset: OFFSET, weight },
    sdrBytes: primary.length,
    gainMapBytes: gainFile.length,
  };
}

/** APP1 XMP segment. Its length bytes must not read as '<' (0x3c): the loader finds the XML by '<'. */
function xmpSegment(xml: string): Uint8Array {
  const encoder = new TextEncoder();
  for (let pad = 0; ; pad++) {
    const body = encoder.encode(XMP_NAMESPACE + xml + ' '.repeat(pad));
    const length = body.length + 2;
    if (length >> 8 !== 0x3c && (length & 0xff) !== 0x3c) return segment(0xe1, body);
  }
}

/**
 * APP2 MPF segment (CIPA DC-007): 'MPF\0', a little-endian TIFF header, one IFD with MPFVersion,
 * NumberOfImages and MPEntry, then two 16-byte MP entries. Offsets count from the TIFF header.
 */
function mpfSegment(primarySize: number, gainMapSize: number, gainMapOffset: number): Uint8Array {
  const body = new Uint8Array(4 + 8 + 2 + 3 * 12 + 4 + 2 * 16);
  const v = new DataView(body.buffer);
  body.set([0x4d, 0x50, 0x46, 0x00], 0); // 'MPF\0'
  const t = 4; // TIFF header
  body.set([0x49, 0x49, 0x2a, 0x00], t); // 'II', 42
  v.setUint32(t + 4, 8, true); // first IFD at 8
  let p = t + 8;
  v.setUint16(p, 3, true);
  p += 2;
  const entry = (tag: number, type: number, count: number, value: (at: number) => void) => {
    v.setUint16(p, tag, true);
    v.setUint16(p + 2, type, true);
    v.setUint32(p + 4, count, true);
    value(p + 8);
    p += 12;
  };
  entry(0xb000, 7, 4, (at) => body.set([0x30, 0x31, 0x30, 0x30], at)); // MPFVersion '0100'
  entry(0xb001, 4, 1, (at) => v.setUint32(at, 2, true)); // NumberOfImages
  const entriesAt = p + 12 + 4; // after this entry and the next-IFD offset
  entry(0xb002, 7, 32, (at) => v.setUint32(at, entriesAt - t, true)); // MPEntry
  v.setUint32(p, 0, true); // no next IFD
  p += 4;
  // Primary: representative image flag + baseline MP primary image type; offset 0 (the file start).
  v.setUint32(p, 0x20030000, true);
  v.setUint32(p + 4, primarySize, true);
  v.setUint32(p + 8, 0, true);
  p += 16;
  v.setUint32(p, 0, true);
  v.setUint32(p + 4, gainMapSize, true);
  v.setUint32(p + 8, gainMapOffset, true);
  return segment(0xe2, body);
}

function segment(marker: number, body: Uint8Array): Uint8Array {
  const length = body.length + 2;
  if (length > 0xffff) throw new Error('A JPEG segment holds at most 65533 bytes.');
  const out = new Uint8Array(body.length + 4);
  out[0] = 0xff;
  out[1] = marker;
  out[2] = length >> 8;
  out[3] = length & 0xff;
  out.set(body, 4);
  return out;
}

/** Where the segments after SOI and the APP0 (JFIF) segment jpeg-js writes first begin. */
function app0End(file: Uint8Array): number {
  if (file[0] !== 0xff || file[1] !== 0xd8) throw new Error('Not a JPEG file.');
  return file[2] === 0xff && file[3] === 0xe0 ? 4 + ((file[4] << 8) | file[5]) : 2;
}

/** Inserts segments after SOI and APP0. */
function insertAfterApp0(file: Uint8Array, segments: Uint8Array[]): Uint8Array {
  const at = app0End(file);
  const extra = segments.reduce((sum, s) => sum + s.length, 0);
  const out = new Uint8Array(file.length + extra);
  out.set(file.subarray(0, at), 0);
  let p = at;
  for (const s of segments) {
    out.set(s, p);
    p += s.length;
  }
  out.set(file.subarray(at), p);
  return out;
}
