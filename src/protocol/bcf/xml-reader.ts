import { DOMParser, type Element as XmlDomElement } from '@xmldom/xmldom';
import { BcfImportError, fromBcfAxes, isBcfGuid, type Vec3 } from './model.ts';

/**
 * Reading BCF's XML files: the bytes as text, the text as a document (no DOCTYPE: no entity
 * expansion), and the values BCF's schemas define (numbers, points in Z-up axes, dates, GUIDs).
 * Every failure is a BcfImportError naming the file and the element.
 */

export type { XmlDomElement };

export function decodeXmlBytes(bytes: Uint8Array, file: string): string {
  try {
    if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le', { fatal: true }).decode(bytes);
    if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be', { fatal: true }).decode(bytes);
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new BcfImportError(`${file} is not valid UTF-8 text`);
  }
}

export function parseXml(text: string, file: string): XmlDomElement {
  let doc;
  try {
    doc = new DOMParser({
      onError(level, message) {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(text, 'text/xml');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new BcfImportError(`${file} is not well-formed XML: ${message.split('\n')[0]}`);
  }
  if (doc.doctype) throw new BcfImportError(`${file} has a DOCTYPE; BCF files have none`);
  const root = doc.documentElement;
  if (!root) throw new BcfImportError(`${file} has no root element`);
  return root;
}

export function children(parent: XmlDomElement, name: string): XmlDomElement[] {
  const out: XmlDomElement[] = [];
  for (let n = parent.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as XmlDomElement).localName === name) out.push(n as XmlDomElement);
  }
  return out;
}

export function child(parent: XmlDomElement, name: string): XmlDomElement | undefined {
  return children(parent, name)[0];
}

export function textOf(parent: XmlDomElement, name: string): string | undefined {
  const c = child(parent, name);
  return c ? (c.textContent ?? '') : undefined;
}

export function readNumber(parent: XmlDomElement, name: string, where: string): number {
  const raw = textOf(parent, name);
  if (raw === undefined) throw new BcfImportError(`${where}: ${name} is missing`);
  const trimmed = raw.trim();
  // xs:double's lexical space (INF and NaN refused: no camera or plane has them).
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)) throw new BcfImportError(`${where}: ${name} "${trimmed}" is not a number`);
  const value = Number(trimmed);
  if (!Number.isFinite(value)) throw new BcfImportError(`${where}: ${name} "${trimmed}" is not a finite number`);
  return value;
}

export function readPoint(parent: XmlDomElement, name: string, where: string): Vec3 {
  const node = child(parent, name);
  if (!node) throw new BcfImportError(`${where}: ${name} is missing`);
  const at = `${where}, ${name}`;
  return fromBcfAxes([readNumber(node, 'X', at), readNumber(node, 'Y', at), readNumber(node, 'Z', at)]);
}

export function readDirection(parent: XmlDomElement, name: string, where: string): Vec3 {
  const v = readPoint(parent, name, where);
  if (Math.hypot(v[0], v[1], v[2]) === 0) throw new BcfImportError(`${where}: ${name} is the zero vector`);
  return v;
}

/** An xs:dateTime as ISO 8601 UTC; one without a zone is taken as UTC. */
export function readDate(raw: string | undefined, where: string, what: string): string {
  if (raw === undefined) throw new BcfImportError(`${where}: ${what} is missing`);
  const value = raw.trim();
  const m = /^-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/.exec(value);
  const t = m ? Date.parse(m[2] ? value : `${value}Z`) : NaN;
  if (!Number.isFinite(t)) throw new BcfImportError(`${where}: ${what} "${value}" is not a date-time`);
  return new Date(t).toISOString();
}

export function readGuid(node: XmlDomElement, where: string): string {
  const guid = node.getAttribute('Guid');
  if (guid === null || guid === '') throw new BcfImportError(`${where}: the Guid attribute is missing`);
  if (!isBcfGuid(guid.trim())) throw new BcfImportError(`${where}: Guid "${guid}" is not a GUID`);
  return guid.trim();
}
