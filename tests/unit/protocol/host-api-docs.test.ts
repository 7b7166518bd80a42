import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docEntries, htmlReference, markdownReference, NOT_OFFERED, SKETCHFAB_EQUIVALENTS, typeOf } from '../../../src/protocol/host-api-docs';
import { HOST_EVENTS, HOST_FUNCTION_NAMES } from '../../../src/protocol/host-api';

const ROOT = resolve(import.meta.dirname, '../../..');

describe('host API reference', () => {
  it('documents every function and event', () => {
    const names = docEntries().map((e) => e.name);
    expect(names).toEqual([...HOST_FUNCTION_NAMES, ...Object.keys(HOST_EVENTS)]);
    const md = markdownReference();
    for (const name of HOST_FUNCTION_NAMES) expect(md).toContain(`### \`${name}\``);
  });

  it('renders arguments and results as types', () => {
    const setCamera = docEntries().find((e) => e.name === 'setCamera')!;
    expect(setCamera.args).toContain('position?: [number, number, number];');
    expect(setCamera.args).toContain('transition?: boolean;');
    expect(setCamera.result).toContain('projection: "Perspective" | "Orthographic";');
    expect(typeOf({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } })).toBe('(string | null)[]');
  });

  it("maps Sketchfab's functions onto ours (each of ours exists) and says why the rest is not offered", () => {
    for (const [theirs, ours] of SKETCHFAB_EQUIVALENTS) {
      expect(ours.length, theirs).toBeGreaterThan(0);
      for (const name of ours) expect(HOST_FUNCTION_NAMES, `${theirs} -> ${name}`).toContain(name);
    }
    const md = markdownReference();
    const html = htmlReference();
    for (const [theirs, why] of NOT_OFFERED) {
      expect(why.length, theirs).toBeGreaterThan(20);
      expect(md).toContain(`**${theirs}**`);
    }
    expect(html).toContain('id="sketchfab"');
    // A function offered under Sketchfab's own name is not listed as missing.
    const missing = NOT_OFFERED.flatMap(([theirs]) => theirs.split(/,\s*/));
    for (const name of HOST_FUNCTION_NAMES) expect(missing).not.toContain(name);
  });

  it('docs/host-api.md and public/api/reference.html are current (run `npm run api-docs`)', () => {
    expect(readFileSync(resolve(ROOT, 'docs/host-api.md'), 'utf8')).toBe(markdownReference());
    expect(readFileSync(resolve(ROOT, 'public/api/reference.html'), 'utf8')).toBe(htmlReference());
  });
});
