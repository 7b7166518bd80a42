import { describe, expect, it } from 'vitest';
import { autoPlayOf, EMBED_PATH, parseBoolOption } from '../../../src/protocol/embed-query';

describe("the embed's boolean query options", () => {
  it("read '', 1, true, yes, on as true and 0, false, no, off as false, trimmed and in any case; anything else is the default", () => {
    for (const value of ['', '1', 'true', 'YES', ' on ']) {
      expect(parseBoolOption(value, false), JSON.stringify(value)).toBe(true);
    }
    for (const value of ['0', 'False', 'no', '\toff\n']) {
      expect(parseBoolOption(value, true), JSON.stringify(value)).toBe(false);
    }
    for (const fallback of [true, false]) {
      expect(parseBoolOption(null, fallback)).toBe(fallback);
      expect(parseBoolOption('maybe', fallback)).toBe(fallback);
    }
  });

  it('autoPlay is on unless the query turns it off', () => {
    expect(autoPlayOf('')).toBe(true);
    expect(autoPlayOf('?autoPlay=')).toBe(true);
    expect(autoPlayOf('?autoPlay=perhaps')).toBe(true);
    expect(autoPlayOf('?quality=low&autoPlay=%20OFF')).toBe(false);
    expect(autoPlayOf('?autoPlay=0')).toBe(false);
  });
});

describe("the embed's page", () => {
  it('is /embed/{sceneId}, with or without a trailing slash; the id as written (URI-encoded)', () => {
    expect(EMBED_PATH.exec('/embed/s%201')?.[1]).toBe('s%201');
    expect(EMBED_PATH.exec('/embed/demo/')?.[1]).toBe('demo');
    for (const path of ['/embed/', '/embed/a/b', '/edit/demo', '/x/embed/demo', '/']) expect(EMBED_PATH.exec(path), path).toBeNull();
  });
});
