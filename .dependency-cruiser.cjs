/**
 * The layers of ARCHITECTURE.md ("Layers (imports point down)"), held by `npm run lint`
 * (dependency-cruiser; eslint.config.js holds the rest). A rule per layer: what it may import of
 * ours. Static, dynamic and type-only imports all count; import cycles count only at run time
 * (an `import type` is erased by the compiler and orders nothing).
 */

const LAYERS = {
  ui: '^src/ui/',
  editor: '^src/editor/',
  meeting: '^src/meeting/',
  api: '^src/api/',
  viewer: '^src/viewer/',
  systems: '^systems/',
  scene: '^src/scene/',
  engine: '^src/engine/',
  components: '^components/',
  service: '^src/service/',
  protocol: '^src/protocol/',
  server: '^src/server/',
};

/** Our own code: any layer (a folder of src/ that is none of them is refused below). */
const OURS = '^(src|systems|components)/';

/** three.js, its examples and its types. */
const THREE = '^node_modules/(@types/)?three/';

/** What each layer may import of ours, besides itself. Everything may import src/protocol. */
const MAY_IMPORT = {
  // Talks to the interfaces below (Viewer, Editor, Meeting, host API) only.
  ui: ['editor', 'meeting', 'api', 'viewer', 'service'],
  // editor, meeting and api are three interfaces side by side above the viewer: none imports another.
  editor: ['viewer', 'scene', 'engine', 'components', 'service'],
  meeting: ['viewer', 'scene', 'engine', 'components', 'service'],
  // The host-page API (transport, typed client, comments) talks to the Viewer only.
  api: ['viewer', 'service'],
  // viewer -> systems -> engine -> components; the viewer composes the pipeline, so only it imports systems/.
  viewer: ['systems', 'scene', 'engine', 'components', 'service'],
  systems: ['scene', 'engine', 'components'],
  scene: ['engine', 'components', 'service'],
  // The frame loop takes its pipeline as an argument: the engine never imports systems/.
  engine: ['components'],
  components: [],
  // The model service's client and the page's token: src/protocol only.
  service: [],
  protocol: [],
  // Node services: src/protocol only; and no browser code imports the server.
  server: [],
};

const alternatives = (names) => `^(${names.map((name) => LAYERS[name].slice(1)).join('|')})`;

const layerRules = Object.entries(MAY_IMPORT).map(([layer, names]) => {
  const allowed = layer === 'protocol' ? [] : [...names, 'protocol'];
  return {
    name: `layer-${layer}`,
    comment: `ARCHITECTURE.md: ${layer} imports ${allowed.join(', ') || 'nothing of ours'} (and itself) only.`,
    severity: 'error',
    from: { path: LAYERS[layer] },
    to: { path: OURS, pathNot: alternatives([layer, ...allowed]) },
  };
});

/** The layers that may not import three.js, and why. */
const NO_THREE = {
  ui: 'the UI imports neither three nor the engine.',
  api: 'the host-page API talks to the Viewer only (its typed client is a package of its own, ./client).',
  components: 'bitecs components are SoA typed arrays and tags, no three.js.',
  service: "the model service's client is fetch and the protocol's schemas, no three.js.",
};

module.exports = {
  forbidden: [
    ...layerRules,
    ...Object.entries(NO_THREE).map(([layer, why]) => ({
      name: `no-three-in-${layer}`,
      comment: `ARCHITECTURE.md: ${why}`,
      severity: 'error',
      from: { path: LAYERS[layer] },
      to: { path: THREE },
    })),
    {
      name: 'no-unlayered-folder',
      comment: 'Every folder of src/ is a layer of ARCHITECTURE.md: add a new one there and here.',
      severity: 'error',
      from: { path: '^src/', pathNot: alternatives(Object.keys(LAYERS).filter((name) => LAYERS[name].startsWith('^src/'))) },
      to: {},
    },
    {
      name: 'no-circular',
      comment: 'No import cycles at run time (static or dynamic imports; type-only imports are erased).',
      severity: 'error',
      from: { path: OURS },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports are seen too (the layers count them; the cycle rule leaves them out).
    tsPreCompilationDeps: true,
    // Vite's `?worker`, `?url` and `?raw` suffixes name the module itself.
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] },
    // A second run looks again only at files that changed (npm run lint; CI starts without it).
    cache: { folder: 'node_modules/.cache/dependency-cruiser', strategy: 'content' },
  },
};
