import { z } from 'zod';
import { HOST_EVENTS, HOST_FUNCTIONS, HOST_FUNCTION_NAMES, type HostEventName } from './host-api.ts';

/**
 * The host API's reference, generated from its schemas (src/protocol/host-api.ts): one entry per
 * function with its arguments and result as TypeScript-like types, and one per event. Written as
 * Markdown (docs/host-api.md) and HTML (public/api/reference.html) by scripts/host-api-docs.ts; a
 * unit test fails when either is out of date.
 */

type Json = { [key: string]: unknown };

/** A compact TypeScript-like rendering of a JSON Schema. */
export function typeOf(schema: unknown, depth = 0): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (schema === false) return 'never';
  const s = schema as Json;
  if (typeof s.$ref === 'string') return s.$ref === '#' ? 'Self' : s.$ref.replace(/^#\/(\$defs|definitions)\//, '');
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
    const parts = ((s.anyOf ?? s.oneOf) as unknown[]).map((p) => typeOf(p, depth));
    return [...new Set(parts)].join(' | ');
  }
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const type = s.type;
  if (Array.isArray(type)) return type.map((t) => typeOf({ ...s, type: t }, depth)).join(' | ');
  switch (type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      if (Array.isArray(s.prefixItems)) return `[${(s.prefixItems as unknown[]).map((p) => typeOf(p, depth)).join(', ')}]`;
      const item = typeOf(s.items, depth);
      return /[ |]/.test(item) && !item.startsWith('{') ? `(${item})[]` : `${item}[]`;
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const required = new Set((s.required ?? []) as string[]);
      const keys = Object.keys(props);
      if (keys.length === 0) return s.additionalProperties && s.additionalProperties !== false ? `Record<string, ${typeOf(s.additionalProperties, depth)}>` : '{}';
      const pad = '  '.repeat(depth + 1);
      const fields = keys.map((k) => `${pad}${k}${required.has(k) ? '' : '?'}: ${typeOf(props[k], depth + 1)};`);
      return `{\n${fields.join('\n')}\n${'  '.repeat(depth)}}`;
    }
    default:
      return 'unknown';
  }
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  return z.toJSONSchema(schema, { io, unrepresentable: 'any', cycles: 'ref', reused: 'inline' }) as Json;
}

function defs(schema: Json): string {
  const d = (schema.$defs ?? {}) as Record<string, unknown>;
  return Object.entries(d)
    .map(([name, def]) => `\n\ntype ${name} = ${typeOf(def)}`)
    .join('');
}

export interface DocEntry {
  name: string;
  group: string;
  summary: string;
  access: 'read' | 'change' | 'event';
  args: string;
  result: string;
}

export function docEntries(): DocEntry[] {
  const fns = HOST_FUNCTION_NAMES.map((name) => {
    const spec = HOST_FUNCTIONS[name];
    const a = jsonSchema(spec.args, 'input');
    const r = jsonSchema(spec.result, 'output');
    return { name, group: spec.group, summary: spec.summary, access: spec.access, args: typeOf(a) + defs(a), result: typeOf(r).replace(/\bSelf\b/g, 'Self') + defs(r) };
  });
  const events = (Object.keys(HOST_EVENTS) as HostEventName[]).map((name) => {
    const d = jsonSchema(HOST_EVENTS[name].data, 'output');
    return { name, group: 'Events', summary: HOST_EVENTS[name].summary, access: 'event' as const, args: '', result: typeOf(d) + defs(d) };
  });
  return [...fns, ...events];
}

const INTRO = `The page that embeds the viewer (\`/embed/{sceneId}\`) drives it with window messages
(DESIGN.md 4.3). With the typed client:

\`\`\`js
import { ViewerClient } from 'https://VIEWER_HOST/api/viewer-client.js';
const viewer = new ViewerClient(document.querySelector('iframe'));
await viewer.ready();
const models = await viewer.api.listModels();
viewer.on('raycast', (hit) => console.log(hit.nodeName));
\`\`\`

Messages: \`{type: 'api.init', instanceId?}\` → \`{type: 'api.init.result', instanceId, version, functions, readOnly, mayChange, ready, error?}\`;
\`{type: 'api.request', requestId, func, arguments, instanceId?}\` → \`{type: 'api.response', instanceId, requestId, response}\` or
\`{..., error}\` (the error names the argument at fault); \`{type: 'api.event', instanceId, event, data}\` to pages that called
api.init; \`{type: 'viewerinit' | 'viewerready', instanceId, sceneId}\` to the embedding page.

Who may call what: the scene's \`hostOrigins\` (set by its owner: \`PATCH /v1/scenes/{id} {hostOrigins: [...]}\`).
Absent: any page may call the *read* functions and hear events, only the viewer's own origin may call *change* functions;
\`["*"]\`: any page may do anything; a list: those origins may do anything, any other page gets only an error.
Vectors are \`[x, y, z]\` in world units (metres); angles are degrees unless said otherwise.

Saving as a person: annotations are the scene's comments, saved by the model service as the signed-in person. A page
of the viewer's own site uses the viewer's sign-in. A host page of another site cannot (the framed viewer does not see
its own site's storage): it hands over its user's token with \`setAuthToken({ token })\`, a JWT of the same identity
provider, which the service checks; the viewer keeps it in memory only and never sends it back. Only pages allowed to
change the scene may.`;

export function markdownReference(): string {
  const entries = docEntries();
  const out: string[] = ['# Host-page API reference', '', '<!-- Generated by `npm run api-docs` from src/protocol/host-api.ts: do not edit. -->', '', INTRO, ''];
  let group = '';
  for (const e of entries) {
    if (e.group !== group) {
      group = e.group;
      out.push(`## ${group}`, '');
    }
    if (e.access === 'event') {
      out.push(`### \`${e.name}\``, '', e.summary, '', '```ts', `data: ${e.result}`, '```', '');
    } else {
      out.push(`### \`${e.name}\` (${e.access})`, '', e.summary, '', '```ts', `arguments: ${e.args}`, `result: ${e.result}`, '```', '');
    }
  }
  return out.join('\n');
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function htmlReference(): string {
  const entries = docEntries();
  const groups = [...new Set(entries.map((e) => e.group))];
  const body = groups
    .map((g) => {
      const items = entries
        .filter((e) => e.group === g)
        .map((e) =>
          e.access === 'event'
            ? `<article id="${e.name}"><h3><code>${escape(e.name)}</code></h3><p>${escape(e.summary)}</p><pre>data: ${escape(e.result)}</pre></article>`
            : `<article id="${e.name}"><h3><code>${escape(e.name)}</code> <span class="${e.access}">${e.access}</span></h3><p>${escape(e.summary)}</p><pre>arguments: ${escape(e.args)}\nresult: ${escape(e.result)}</pre></article>`,
        )
        .join('\n');
      return `<section><h2>${escape(g)}</h2>\n${items}</section>`;
    })
    .join('\n');
  const intro = escape(INTRO)
    .replace(/```js\n([\s\S]*?)```/g, '<pre>$1</pre>')
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*([^*]+)\*/g, '<em>$1</em>')
    .replace(/\n\n/g, '</p><p>');
  return `<!doctype html>
<!-- Generated by \`npm run api-docs\` from src/protocol/host-api.ts: do not edit. -->
<html lang="en">
<head>
<meta charset="UTF-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>Host-page API reference · Parametricos viewer</title>
<link rel="icon" href="/assets/images/logo.svg" type="image/svg+xml" />
<link rel="stylesheet" href="/api/reference.css" />
</head>
<body>
<h1>Host-page API reference</h1>
<p>${intro}</p>
<nav>${groups.map((g) => `<a href="#${entries.find((e) => e.group === g)!.name}">${escape(g)}</a>`).join(' · ')} · <a href="/api/example.html">Example page</a></nav>
${body}
</body>
</html>
`;
}
