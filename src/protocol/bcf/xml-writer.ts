/**
 * A small XML 1.0 writer for the documents we produce (BCF): elements, attributes and text, with
 * the escaping done here once. Element content is indented; an element with text holds nothing
 * else, so no whitespace is ever added to a text value.
 */

export interface XmlElement {
  name: string;
  attributes: ReadonlyArray<readonly [string, string]>;
  /** Child elements, or one text value (never both). */
  children: readonly XmlElement[];
  text?: string;
}

type AttrInput = Record<string, string | number | boolean | undefined>;
type ChildInput = XmlElement | undefined | false | null | readonly (XmlElement | undefined | false | null)[];

const NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/;

/** An element with attributes (undefined ones left out, in the order given) and child elements. */
export function el(name: string, attributes: AttrInput = {}, ...children: ChildInput[]): XmlElement {
  if (!NAME.test(name)) throw new Error(`XML: '${name}' is not an element name we write`);
  const attrs: [string, string][] = [];
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    if (!NAME.test(key)) throw new Error(`XML: '${key}' is not an attribute name we write`);
    attrs.push([key, String(value)]);
  }
  const kids: XmlElement[] = [];
  for (const child of children.flat()) if (child) kids.push(child);
  return { name, attributes: attrs, children: kids };
}

/** An element holding only text (and attributes). */
export function textEl(name: string, text: string, attributes: AttrInput = {}): XmlElement {
  return { ...el(name, attributes), text };
}

/**
 * Characters XML 1.0 cannot carry at all, even escaped: C0 controls other than tab, line feed and
 * carriage return, lone surrogates, U+FFFE and U+FFFF. They are replaced by U+FFFD.
 */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text content: & < > escaped; a carriage return as &#13; so a parser's line-end rule keeps it. */
export function escapeText(value: string): string {
  return value
    .replace(NOT_XML, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r/g, '&#13;');
}

/** An attribute value in double quotes: also " and the white space an attribute would normalise. */
export function escapeAttribute(value: string): string {
  return escapeText(value).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;');
}

/** The document: the UTF-8 declaration, then the root, indented by two spaces a level. */
export function renderXml(root: XmlElement): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n'];
  write(root, 0, out);
  return out.join('');
}

function write(node: XmlElement, depth: number, out: string[]): void {
  const pad = '  '.repeat(depth);
  let open = `${pad}<${node.name}`;
  for (const [key, value] of node.attributes) open += ` ${key}="${escapeAttribute(value)}"`;
  if (node.text !== undefined) {
    out.push(node.text === '' ? `${open}/>\n` : `${open}>${escapeText(node.text)}</${node.name}>\n`);
    return;
  }
  if (node.children.length === 0) {
    out.push(`${open}/>\n`);
    return;
  }
  out.push(`${open}>\n`);
  for (const child of node.children) write(child, depth + 1, out);
  out.push(`${pad}</${node.name}>\n`);
}
