import { describe, expect, it } from 'vitest';
import { BcfImportError } from '../../../../src/protocol/bcf/model';
import {
  child,
  children,
  decodeXmlBytes,
  parseXml,
  readDate,
  readDirection,
  readGuid,
  readNumber,
  readPoint,
  textOf,
} from '../../../../src/protocol/bcf/xml-reader';

const xml = (text: string) => parseXml(text, 'f.xml');

describe('the text and the document', () => {
  it('reads UTF-8, and UTF-16 by its byte order mark; refuses bytes that are not text', () => {
    expect(decodeXmlBytes(new TextEncoder().encode('<a>é</a>'), 'f')).toBe('<a>é</a>');
    const le = new Uint8Array([0xff, 0xfe, 0x3c, 0, 0x61, 0, 0x2f, 0, 0x3e, 0]);
    expect(decodeXmlBytes(le, 'f')).toBe('\uFEFF<a/>'.slice(1));
    expect(() => decodeXmlBytes(new Uint8Array([0x3c, 0xc3, 0x28]), 'f.xml')).toThrow(new BcfImportError('f.xml is not valid UTF-8 text'));
  });

  it('gives the root element; refuses broken XML, a DOCTYPE and an empty document, naming the file', () => {
    expect(xml('<Markup><Topic/></Markup>').localName).toBe('Markup');
    expect(() => xml('<Markup><Topic></Markup>')).toThrow(/^f\.xml is not well-formed XML: /);
    expect(() => xml('<!DOCTYPE a [<!ENTITY x "y">]><a/>')).toThrow(BcfImportError);
    expect(() => xml('<!DOCTYPE a><a/>')).toThrow('f.xml has a DOCTYPE; BCF files have none');
  });

  it('finds children by local name and reads their text', () => {
    const root = xml('<r><a>1</a><b/><a>2</a><c></c></r>');
    expect(children(root, 'a').map((n) => n.textContent)).toEqual(['1', '2']);
    expect(child(root, 'b')?.localName).toBe('b');
    expect(child(root, 'z')).toBeUndefined();
    expect(textOf(root, 'a')).toBe('1');
    expect(textOf(root, 'c')).toBe('');
    expect(textOf(root, 'z')).toBeUndefined();
  });
});

describe('values', () => {
  it('reads xs:double numbers, and names a missing, malformed or infinite one', () => {
    const root = xml('<r><a> -1.5e2 </a><b>INF</b><c>1e999</c><d>.5</d></r>');
    expect(readNumber(root, 'a', 'here')).toBe(-150);
    expect(readNumber(root, 'd', 'here')).toBe(0.5);
    expect(() => readNumber(root, 'b', 'here')).toThrow('here: b "INF" is not a number');
    expect(() => readNumber(root, 'c', 'here')).toThrow('here: c "1e999" is not a finite number');
    expect(() => readNumber(root, 'z', 'here')).toThrow('here: z is missing');
  });

  it('reads a point in BCF axes into ours, and refuses a zero direction', () => {
    const root = xml('<r><P><X>1</X><Y>2</Y><Z>3</Z></P><D><X>0</X><Y>0</Y><Z>0</Z></D></r>');
    expect(readPoint(root, 'P', 'here')).toEqual([1, 3, -2]);
    expect(() => readDirection(root, 'D', 'here')).toThrow('here: D is the zero vector');
    expect(() => readPoint(root, 'Q', 'here')).toThrow('here: Q is missing');
  });

  it('reads dates as ISO 8601 UTC, one without a zone as UTC', () => {
    expect(readDate('2020-01-01T00:00:00', 'here', 'Date')).toBe('2020-01-01T00:00:00.000Z');
    expect(readDate(' 2020-01-01T02:00:00.5+02:00 ', 'here', 'Date')).toBe('2020-01-01T00:00:00.500Z');
    expect(() => readDate('2020-01-01', 'here', 'Date')).toThrow('here: Date "2020-01-01" is not a date-time');
    expect(() => readDate(undefined, 'here', 'Date')).toThrow('here: Date is missing');
  });

  it('reads a Guid attribute, trimmed, and names one that is missing or not a GUID', () => {
    const guid = 'a0b1c2d3-0000-4000-8000-000000000001';
    expect(readGuid(xml(`<t Guid=" ${guid} "/>`), 'here')).toBe(guid);
    expect(() => readGuid(xml('<t/>'), 'here')).toThrow('here: the Guid attribute is missing');
    expect(() => readGuid(xml('<t Guid="x"/>'), 'here')).toThrow('here: Guid "x" is not a GUID');
  });
});
