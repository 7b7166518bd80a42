import { DOMParser } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import { el, escapeAttribute, escapeText, renderXml, textEl } from '../../../../src/protocol/bcf/xml-writer';

describe('xml-writer', () => {
  it('escapes text and attributes so a parser reads back the same strings', () => {
    const nasty = 'a & b < c > d " e \' f\r\ng\th ]]> &amp;';
    const xml = renderXml(el('Root', { Note: nasty }, textEl('Text', nasty)));
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    expect(doc.documentElement!.getAttribute('Note')).toBe(nasty);
    expect(doc.documentElement!.getElementsByTagName('Text')[0]!.textContent).toBe(nasty);
  });

  it('writes the declaration, indents elements, never text', () => {
    expect(renderXml(el('A', { x: 1, y: undefined }, textEl('B', ' two  spaces '), el('C'), false, undefined, [textEl('D', '')]))).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<A x="1">\n  <B> two  spaces </B>\n  <C/>\n  <D/>\n</A>\n',
    );
  });

  it('replaces characters XML 1.0 cannot hold and refuses bad names', () => {
    expect(escapeText('a\u0000b\u001Fc\uFFFEd\uD83D')).toBe('a\uFFFDb\uFFFDc\uFFFDd\uFFFD');
    expect(escapeText('emoji \uD83D\uDE00 kept')).toBe('emoji \uD83D\uDE00 kept');
    expect(escapeAttribute('tab\tline\n')).toBe('tab&#9;line&#10;');
    expect(() => el('1bad')).toThrow("XML: '1bad' is not an element name we write");
    expect(() => el('Ok', { 'b a d': 'x' })).toThrow("XML: 'b a d' is not an attribute name we write");
  });
});
