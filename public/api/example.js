// The host API example (README "Host-page API"): a page that embeds the viewer and drives it
// through ViewerClient. Every button calls one function; every event and answer is logged.
import { ViewerClient } from '/api/viewer-client.js';

const $ = (id) => document.getElementById(id);
const log = (text, kind = '') => {
  const li = document.createElement('li');
  li.textContent = `${new Date().toLocaleTimeString()} ${text}`;
  if (kind) li.className = kind;
  $('log').prepend(li);
  while ($('log').children.length > 300) $('log').lastChild.remove();
};
const short = (value) => {
  const text = JSON.stringify(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

let client = null;
let models = [];
let lastHit = null;

async function run(name, action) {
  try {
    const result = await action();
    log(`${name} → ${short(result)}`);
    return result;
  } catch (error) {
    log(`${name} ✗ ${error.message}`, 'error');
    return undefined;
  }
}

const buttons = {
  'List models': () => client.api.listModels().then((list) => (models = list)),
  'Get camera': () => client.api.getCamera(),
  'Fit camera': () => client.api.fitCamera({ transition: true }),
  'Orbit 90°': async () => {
    const c = await client.api.getCamera();
    const [dx, dy, dz] = c.position.map((v, i) => v - c.target[i]);
    return client.api.setCamera({ position: [c.target[0] - dz, c.target[1] + dy, c.target[2] + dx], target: c.target, transition: true });
  },
  'Toggle first model': async () => {
    if (!models.length) models = await client.api.listModels();
    const m = models[0];
    const result = await client.api.setModelVisibility({ modelId: m.modelId, visible: !m.visible });
    m.visible = result.visible;
    return result;
  },
  'Node tree': async () => {
    if (!models.length) models = await client.api.listModels();
    return client.api.getNodeTree({ modelId: models[0].modelId });
  },
  'Materials': () => client.api.listMaterials(),
  'Tint clicked material': () => {
    if (!lastHit?.materialId) throw new Error('Click the model first.');
    return client.api.setMaterial({ modelId: lastHit.modelId, materialId: lastHit.materialId, properties: { color: '#e0533a' } });
  },
  'Raise clicked node': async () => {
    if (!lastHit?.nodeId) throw new Error('Click the model first.');
    const node = await client.api.getNode({ modelId: lastHit.modelId, nodeId: lastHit.nodeId });
    const [x, y, z] = node.translation;
    return client.api.setObjectTranslation({ modelId: node.modelId, nodeId: node.nodeId, translation: [x, y + 0.2, z] });
  },
  'Highlight clicked node': () => {
    if (!lastHit?.nodeId) throw new Error('Click the model first.');
    return client.api.highlightObject({ modelId: lastHit.modelId, nodeId: lastHit.nodeId });
  },
  'Annotate clicked point': () => {
    if (!lastHit) throw new Error('Click the model first.');
    return client.api.createAnnotation({ position: lastHit.position, title: `Note on ${lastHit.nodeName || 'the model'}` });
  },
  'Animations': () => client.api.listAnimations(),
  'Play first animation': async () => {
    const [first] = await client.api.listAnimations();
    if (!first) throw new Error('The scene has no animations.');
    return client.api.playAnimation({ modelId: first.modelId, animation: first.id });
  },
  'Textures': () => client.api.listTextures(),
  'Measure length': () => client.api.activateTool({ tool: 'length-measure-tool' }),
  'Measure from clicked point up 1 m': () => {
    if (!lastHit) throw new Error('Click the model first.');
    const [x, y, z] = lastHit.position;
    return client.api.createMeasurement({ kind: 'length', points: [lastHit.position, [x, y + 1, z]] });
  },
  'Cut at clicked point': () => {
    if (!lastHit) throw new Error('Click the model first.');
    return client.api.createSectionPlane({ point: lastHit.position, normal: lastHit.normal.map((v) => -v) });
  },
  'Remove measurements and planes': async () => {
    const [measurements, planes] = await Promise.all([client.api.listMeasurements(), client.api.listSectionPlanes()]);
    for (const m of measurements) await client.api.removeMeasurement({ id: m.id });
    for (const p of planes) await client.api.removeSectionPlane({ id: p.id });
    return { measurements: measurements.length, planes: planes.length };
  },
  'Section plane': () => client.api.activateTool({ tool: 'section-tool' }),
  'Tools off': () => client.api.activateTool({ tool: null }),
  'Orthographic': () => client.api.setProjection({ projection: 'Orthographic' }),
  'Perspective': () => client.api.setProjection({ projection: 'Perspective' }),
  'Gradient background': () => client.api.setBackground({ backgroundType: 'gradient', backgroundColor1: '#20324d', backgroundColor2: '#c9d6e8' }),
  'Fog on/off': async () => {
    const s = await client.api.getSceneSettings();
    return client.api.setFog({ fogEnabled: !s.fogEnabled, fogDensity: 0.02, fogColor: '#c9d6e8' });
  },
  'Screenshot': async () => {
    const image = await client.api.screenshot({ width: 640 });
    show(image);
    return { width: image.width, height: image.height, mimeType: image.mimeType };
  },
  'Offscreen from above': async () => {
    const c = await client.api.getCamera();
    const image = await client.api.renderOffscreenFrame({ width: 640, height: 400, position: [c.target[0], c.target[1] + 10, c.target[2] + 0.01], target: c.target, fit: true, transparent: true });
    show(image);
    return { width: image.width, height: image.height, mimeType: image.mimeType };
  },
};

function show(image) {
  $('picture').src = image.dataUrl;
  $('picture').hidden = false;
}

function connect(sceneId) {
  client?.dispose();
  $('buttons').replaceChildren();
  const iframe = $('viewer');
  iframe.src = `/embed/${encodeURIComponent(sceneId)}`;
  client = new ViewerClient(iframe);
  client.on('*', (data, event) => {
    if (event === 'hotspots') return; // every camera move: shown as the marker, not logged
    log(`event ${event} ${short(data)}`);
  });
  client.on('raycast', (hit) => (lastHit = hit));
  client.on('annotation.click', ({ annotationId }) => run(`gotoAnnotation ${annotationId}`, () => client.api.gotoAnnotation({ id: annotationId })));
  client.on('hotspots', ({ points }) => {
    const marker = $('hotspot');
    const p = points.find((point) => point.id === 'centre');
    marker.hidden = !p || !p.visible;
    if (p) marker.style.transform = `translate(${p.x}px, ${p.y}px) translate(-50%, -50%)`;
  });
  client.ready().then(
    async (info) => {
      log(`ready: ${info.functions.length} functions${info.mayChange ? '' : ' (read only)'}`);
      for (const [label, action] of Object.entries(buttons)) {
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = label;
        button.addEventListener('click', () => run(label, action));
        $('buttons').append(button);
      }
      const camera = await client.api.getCamera();
      await run('registerHotspots', () => client.api.registerHotspots({ points: [{ id: 'centre', position: camera.target }] }));
    },
    (error) => log(`ready ✗ ${error.message}`, 'error'),
  );
}

async function main() {
  $('clear').addEventListener('click', () => $('log').replaceChildren());
  const response = await fetch('/v1/scenes', { headers: { Accept: 'application/json' } });
  const { scenes } = await response.json();
  const select = $('scene');
  for (const scene of scenes) select.append(new Option(`${scene.name} (${scene.modelCount} models)`, scene.id));
  const wanted = new URLSearchParams(location.search).get('scene');
  if (wanted) select.value = wanted;
  select.addEventListener('change', () => connect(select.value));
  if (select.value) connect(select.value);
  else log('No scene: import one with `npm run import -- FILE`.', 'error');
}

main().catch((error) => log(`The example could not start: ${error.message}`, 'error'));
