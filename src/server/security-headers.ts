import { createHash } from 'node:crypto';
import type { ServerConfig } from './config.ts';

/**
 * The security headers of our pages (issue 10, item 4):
 *
 * - every answer: `X-Content-Type-Options: nosniff` and `Referrer-Policy: strict-origin-when-cross-origin`;
 * - every HTML page: a Content-Security-Policy that the app itself passes (its scripts, the inline
 *   scripts of index.html by their SHA-256, Web Workers from our files and from blobs (three's Draco
 *   and KTX2 decoders), WebAssembly and eval (the KTX2 transcoder needs it), images from anywhere (uiLogoUrl, thumbnails are any URL), data
 *   and blob URLs for the models' embedded buffers and textures, and the configured endpoints);
 *   violations are reported to CSP_REPORT_PATH and logged;
 * - framing: `/embed/*` may be framed by any page (that is what it is for); every other page (the
 *   home page, the editor, sign-in) by none (`frame-ancestors 'none'`, `X-Frame-Options: DENY`),
 *   so no other site can overlay its buttons (clickjacking on saves).
 */

export const CSP_REPORT_PATH = '/csp-reports';

export const COMMON_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
};

/** The SHA-256 CSP source of a script's text, exactly as it stands between its tags. */
export function scriptHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The hash sources of the inline scripts (without `src`) of an HTML page. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    if (/\bsrc\s*=/i.test(match[1]) || match[2].length === 0) continue;
    hashes.push(scriptHash(match[2]));
  }
  return [...new Set(hashes)];
}

/** The origins of the configured endpoints that are absolute URLs (relative ones are this origin), with ws(s) for http(s). */
function endpointOrigins(config: ServerConfig): string[] {
  const origins = new Set<string>();
  for (const value of Object.values(config.endpoints)) {
    try {
      const url = new URL(value);
      origins.add(url.origin);
      if (url.protocol === 'http:' || url.protocol === 'https:') origins.add(`${url.protocol === 'https:' ? 'wss:' : 'ws:'}//${url.host}`);
      if (url.protocol === 'ws:' || url.protocol === 'wss:') origins.add(`${url.protocol === 'wss:' ? 'https:' : 'http:'}//${url.host}`);
    } catch {
      // a path: this origin
    }
  }
  return [...origins];
}

export interface PagePolicy {
  /** Hash sources of the page's inline scripts. */
  scriptHashes: string[];
  /** Whether other sites may frame the page (the embedded viewer). */
  frameable: boolean;
  /** Extra directives' sources, e.g. the sign-in pages' inline styles. */
  inlineStyles?: boolean;
}

/** The Content-Security-Policy of one of our pages. */
export function contentSecurityPolicy(config: ServerConfig, policy: PagePolicy): string {
  const endpoints = endpointOrigins(config);
  const directives: [string, ...string[]][] = [
    ['default-src', "'self'"],
    // 'unsafe-eval': three's KTX2 decoder runs Basis's transcoder (Emscripten embind, which builds
    // its bindings with `new Function`) in a worker made from a blob, and such a worker has the
    // page's policy. No 'unsafe-inline': index.html's inline scripts are allowed by their hashes.
    ['script-src', "'self'", "'wasm-unsafe-eval'", "'unsafe-eval'", ...policy.scriptHashes],
    ['worker-src', "'self'", 'blob:'],
    ['connect-src', "'self'", 'data:', 'blob:', ...endpoints],
    ['img-src', "'self'", 'data:', 'blob:', 'https:', 'http:'],
    // React sets style attributes; libraries and test tools add <style> elements.
    ['style-src', "'self'", "'unsafe-inline'"],
    ['font-src', "'self'", 'data:'],
    ['media-src', "'self'", 'data:', 'blob:'],
    ['object-src', "'none'"],
    ['base-uri', "'self'"],
    ['form-action', "'self'"],
    ['report-uri', CSP_REPORT_PATH],
  ];
  if (!policy.frameable) directives.push(['frame-ancestors', "'none'"]);
  return directives.map((d) => d.join(' ')).join('; ');
}

/** Headers of a page: the CSP and, when it must not be framed, X-Frame-Options for old browsers. */
export function pageHeaders(config: ServerConfig, policy: PagePolicy): Record<string, string> {
  const headers: Record<string, string> = { 'content-security-policy': contentSecurityPolicy(config, policy) };
  if (!policy.frameable) headers['x-frame-options'] = 'DENY';
  return headers;
}
