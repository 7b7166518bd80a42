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

Who may call what: the scene's \`hostOrigins\` (set by its owner in the editor's Scene panel, "Host pages", or with
\`PATCH /v1/scenes/{id} {hostOrigins: [...]}\`).
Absent (or \`[]\`, which is the same and is stored as absent): any page may call the *read* functions and hear events,
only the viewer's own origin may call *change* functions; \`["*"]\`: any page may do anything; a list: those origins may
do anything, any other page gets only an error.
Changes from one page (one origin in one window) apply in the order sent: each starts once the one before it is answered
(a failed one does not hold the next); a read sent behind a change waits for it.
Vectors are \`[x, y, z]\` in world units (metres); angles are degrees unless said otherwise.

Saving as a person: annotations are the scene's comments, saved by the model service as the signed-in person. A page
of the viewer's own site uses the viewer's sign-in. A host page of another site cannot (the framed viewer does not see
its own site's storage): it hands over its user's token with \`setAuthToken({ token })\`, a JWT of the same identity
provider, which the service checks; the viewer keeps it in memory only and never sends it back. Only pages allowed to
change the scene may.`;

/**
 * Sketchfab's Viewer API (the anchor of issue 12), function by function: what does the same here.
 * Every name on the right is one of ours (a unit test checks it).
 */
export const SKETCHFAB_EQUIVALENTS: readonly (readonly [sketchfab: string, ours: readonly string[]])[] = [
  ['getScreenShot', ['screenshot', 'renderOffscreenFrame']],
  ['getCameraLookAt, getFov', ['getCamera']],
  ['setCameraLookAt, setFov', ['setCamera', 'setCameraConfig']],
  ['recenterCamera, focusOnVisibleGeometries', ['fitCamera']],
  ['getNodeMap, getSceneGraph', ['getNodeTree', 'getNode', 'getObjectByName']],
  ['show, hide', ['setObjectVisibility', 'setModelVisibility']],
  ['translate, rotate, getMatrix, setMatrix', ['setObjectTranslation', 'setObjectRotation', 'setObjectScale', 'getNode']],
  ['setHighlightOptions', ['highlightObject']],
  ['getMaterialList, setMaterial', ['listMaterials', 'getMaterial', 'setMaterial']],
  ['getTextureList, addTexture, updateTexture', ['listTextures', 'addTexture', 'updateTexture', 'removeTexture']],
  ['getEnvironment, setEnvironment, setBackground', ['getSceneSettings', 'setEnvironment', 'setBackground']],
  ['getPostProcessing, setPostProcessing', ['getPostProcessing', 'setPostProcessing']],
  ['setTextureQuality', ['setQuality']],
  ['getSceneLights, setLight (the sun)', ['setSun', 'setSceneSettings']],
  ['pick', ['pickFromScreen']],
  ['getWorldToScreenCoordinates', ['getWorldToScreenCoordinates', 'registerHotspots']],
  ['getAnnotationList, getAnnotation', ['listAnnotations', 'getAnnotation']],
  ['createAnnotationFromScenePosition, createAnnotationFromWorldPosition', ['createAnnotation']],
  ['updateAnnotation, removeAnnotation, gotoAnnotation', ['updateAnnotation', 'removeAnnotation', 'gotoAnnotation']],
  ['getAnimations, getCurrentTime, isPlaying', ['listAnimations']],
  ['setCurrentAnimationByUID, play, setCycleMode', ['playAnimation']],
  ['pause, seekTo, setSpeed', ['pauseAnimation', 'resumeAnimation', 'stopAnimation', 'seekAnimation', 'setAnimationSpeed']],
];

/** What Sketchfab's Viewer API has that this one deliberately does not offer, and why. */
export const NOT_OFFERED: readonly (readonly [sketchfab: string, why: string])[] = [
  ['start, stop, load', 'The iframe URL names the scene and the viewer starts with its page; a page shows another scene by changing the iframe\'s src.'],
  [
    'setUserInteraction, setCameraConstraints, setEnableCameraConstraints, setCameraEasing',
    'The viewer has no input lock, camera limits or easing curves to switch: its visitor always navigates. setCamera glides with the viewer\'s own transition.',
  ],
  [
    'showAnnotation, hideAnnotation, showAnnotationTooltip(s), hideAnnotationTooltips, setAnnotationsTexture, setAnnotationCameraTransition',
    "Annotations are the scene's comments: their pins and panel are the viewer's comment UI, the same for every visitor, not a host page's styling.",
  ],
  ['removeAllAnnotations', "It would delete other people's comments at once; removeAnnotation removes one, by the service's rules (the author's own, or any for the owner)."],
  ['setLight for other lights, getSceneLights of every light', "The scene's other lights are the editor's scene objects, changed in the editor and saved with the scene; a host page sets the sun and ambient light."],
  ['addVideoTexture', 'The viewer has no video textures.'],
  ['setWireframe, getWireframe', 'The viewer has no wireframe drawing.'],
  ['setCanvasFocus', 'The host page focuses the iframe itself (iframe.focus()); the viewer takes keys only while it has the focus.'],
];

function comparison(): string[] {
  return [
    "## Compared with Sketchfab's Viewer API",
    '',
    '| Sketchfab | here |',
    '|---|---|',
    ...SKETCHFAB_EQUIVALENTS.map(([theirs, ours]) => `| ${theirs} | ${ours.map((n) => `\`${n}\``).join(', ')} |`),
    '',
    'Not offered, on purpose:',
    '',
    ...NOT_OFFERED.map(([theirs, why]) => `- **${theirs}**: ${why}`),
    '',
    'Ours besides: section planes and measurements (create, move, remove), tools, hotspots (screen positions sent as the camera moves), navigation modes and projection, fog, water, shadow plane, pictures from another camera, and handing over a user\'s token (setAuthToken).',
    '',
  ];
}

export function markdownReference(): string {
  const entries = docEntries();
  const out: string[] = ['# Host-page API reference', '', '<!-- Generated by `npm run api-docs` from src/protocol/host-api.ts: do not edit. -->', '', INTRO, '', ...comparison()];
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
<nav>${groups.map((g) => `<a href="#${entries.find((e) => e.group === g)!.name}">${escape(g)}</a>`).join(' · ')} · <a href="#sketchfab">Sketchfab</a> · <a href="/api/example.html">Example page</a></nav>
${body}
<section id="sketchfab"><h2>Compared with Sketchfab's Viewer API</h2>
<table><thead><tr><th>Sketchfab</th><th>here</th></tr></thead><tbody>
${SKETCHFAB_EQUIVALENTS.map(([theirs, ours]) => `<tr><td>${escape(theirs)}</td><td>${ours.map((n) => `<a href="#${n}"><code>${n}</code></a>`).join(', ')}</td></tr>`).join('\n')}
</tbody></table>
<p>Not offered, on purpose:</p>
<ul>
${NOT_OFFERED.map(([theirs, why]) => `<li><strong>${escape(theirs)}</strong>: ${escape(why)}</li>`).join('\n')}
</ul></section>
</body>
</html>
`;
}
