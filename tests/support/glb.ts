/** A GLB from its JSON and BIN chunk (both padded to 4 bytes, as the format requires). */
export function packGlb(json: object, bin: Uint8Array): Uint8Array<ArrayBuffer> {
  let text = new TextEncoder().encode(JSON.stringify(json));
  if (text.length % 4) text = new Uint8Array([...text, ...new Array(4 - (text.length % 4)).fill(0x20)]);
  const binPadded = new Uint8Array(Math.ceil(bin.length / 4) * 4);
  binPadded.set(bin);
  const out = new Uint8Array(28 + text.length + binPadded.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x46546c67, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, out.length, true);
  view.setUint32(12, text.length, true);
  view.setUint32(16, 0x4e4f534a, true);
  out.set(text, 20);
  view.setUint32(20 + text.length, binPadded.length, true);
  view.setUint32(24 + text.length, 0x004e4942, true);
  out.set(binPadded, 28 + text.length);
  return out;
}
