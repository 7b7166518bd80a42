import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * ARCHITECTURE.md's layers are held by `npm run lint` (dependency-cruiser, .dependency-cruiser.cjs,
 * over every import of src/, systems/ and components/). This test holds that configuration: its
 * layers are ARCHITECTURE.md's list and every folder of src/, and its rules refuse the imports the
 * layers forbid (the five that were broken when the lint came among them) and allow the ones
 * they permit. Paths are as dependency-cruiser names them.
 */

const ROOT = join(import.meta.dirname, '../../..');

interface PathCondition {
  path?: string;
  pathNot?: string;
  circular?: boolean;
}
interface Rule {
  name: string;
  from: PathCondition;
  to: PathCondition;
}

const { forbidden } = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: Rule[] };

const matches = (condition: PathCondition, path: string) =>
  (condition.path === undefined || new RegExp(condition.path).test(path)) && (condition.pathNot === undefined || !new RegExp(condition.pathNot).test(path));

/** The rules (other than the cycle rule) that refuse an import of `to` by `from`. */
function refusing(from: string, to: string): string[] {
  return forbidden.filter((rule) => !rule.to.circular && matches(rule.from, from) && matches(rule.to, to)).map((rule) => rule.name);
}

/** The layers' folders: each `layer-*` rule's `from`. */
const layerFolders = forbidden
  .filter((rule) => rule.name.startsWith('layer-'))
  .map((rule) => rule.from.path!.replace(/^\^/, '').replace(/\/$/, ''))
  .sort();

const THREE = 'node_modules/three/build/three.module.js';

describe('layers: the lint holds ARCHITECTURE.md', () => {
  it('has a rule for each layer ARCHITECTURE.md lists, and no other', () => {
    const doc = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
    const block = doc.split('## Layers')[1]!.split('```')[1]!;
    const listed = block
      .split('\n')
      .filter((line) => /^\S/.test(line))
      .map((line) => line.split(/\s/)[0]!.replace(/\/$/, ''))
      .sort();
    expect(listed.length).toBeGreaterThan(8);
    expect(layerFolders).toEqual(listed);
  });

  it('every folder of src/ is a layer', () => {
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `src/${entry.name}`);
    expect(folders.filter((folder) => !layerFolders.includes(folder))).toEqual([]);
    expect(refusing('src/newfolder/a.ts', 'src/protocol/errors.ts')).toContain('no-unlayered-folder');
  });

  it.each([
    // The five broken before the lint (issue 34, item 7).
    ['src/meeting/comments.ts', 'src/api/comments.ts'],
    ['src/ui/AssetLibrary.tsx', 'src/scene/asset-thumbnail.ts'],
    ['src/editor/editor.ts', 'systems/shadowBudgetSystem.ts'],
    ['src/api/viewer-api.ts', 'src/engine/messages.ts'],
    ['src/api/viewer-api.ts', 'components/index.ts'],
    // The UI and the host-page API talk to the interfaces only.
    ['src/ui/panels.tsx', 'src/engine/world.ts'],
    ['src/ui/panels.tsx', 'systems/index.ts'],
    ['src/ui/panels.tsx', 'components/index.ts'],
    ['src/ui/panels.tsx', THREE],
    ['src/api/host-api.ts', 'src/scene/apply-mutations.ts'],
    ['src/api/host-api.ts', THREE],
    // editor, meeting and api side by side.
    ['src/editor/editor.ts', 'src/meeting/meeting.ts'],
    ['src/api/comments.ts', 'src/editor/editor.ts'],
    // Imports point down.
    ['src/viewer/viewer.ts', 'src/editor/editor.ts'],
    ['src/viewer/viewer.ts', 'src/ui/panels.tsx'],
    ['systems/renderSystem.ts', 'src/viewer/viewer.ts'],
    ['src/scene/load.ts', 'src/viewer/viewer.ts'],
    ['src/scene/load.ts', 'systems/index.ts'],
    ['src/engine/frame-loop.ts', 'systems/index.ts'],
    ['src/engine/world.ts', 'src/scene/gltf.ts'],
    ['components/Transform.ts', 'src/engine/world.ts'],
    ['components/Transform.ts', THREE],
    ['src/protocol/scene.ts', 'src/engine/world.ts'],
    ['src/protocol/scene.ts', 'components/index.ts'],
    // The server imports the protocol only; no browser code imports the server.
    ['src/server/app.ts', 'src/scene/fetch.ts'],
    ['src/server/app.ts', 'components/index.ts'],
    ['src/viewer/load.ts', 'src/server/index-page.ts'],
    ['src/protocol/scene.ts', 'src/server/app.ts'],
    // The model service's client imports the protocol only; the protocol and the engine do not import it.
    ['src/service/client.ts', 'src/api/comments.ts'],
    ['src/service/client.ts', 'src/viewer/viewer.ts'],
    ['src/service/client.ts', 'src/scene/fetch.ts'],
    ['src/service/client.ts', 'src/server/app.ts'],
    ['src/service/client.ts', THREE],
    ['src/protocol/scene.ts', 'src/service/client.ts'],
    ['src/engine/world.ts', 'src/service/client.ts'],
    ['components/index.ts', 'src/service/client.ts'],
  ])('refuses %s -> %s', (from, to) => {
    expect(refusing(from, to)).not.toEqual([]);
  });

  it.each([
    ['src/ui/panels.tsx', 'src/viewer/viewer.ts'],
    ['src/ui/panels.tsx', 'src/editor/editor.ts'],
    ['src/ui/panels.tsx', 'src/meeting/meeting.ts'],
    ['src/ui/panels.tsx', 'src/api/comments.ts'],
    ['src/api/host-page.ts', 'src/viewer/viewer-api.ts'],
    ['src/editor/editor.ts', 'src/viewer/viewer.ts'],
    ['src/editor/editor.ts', 'src/scene/apply-mutations.ts'],
    ['src/editor/editor.ts', 'src/engine/lights.ts'],
    ['src/editor/gizmo.ts', 'components/index.ts'],
    ['src/editor/gizmo.ts', THREE],
    ['src/meeting/avatars.ts', 'components/index.ts'],
    ['src/viewer/viewer.ts', 'systems/index.ts'],
    ['src/viewer/viewer-api.ts', 'src/engine/messages.ts'],
    ['systems/shadowBudgetSystem.ts', 'src/engine/lights.ts'],
    ['src/scene/gltf.ts', 'src/engine/world.ts'],
    ['src/engine/world.ts', 'components/index.ts'],
    ['components/index.ts', 'src/protocol/constants.ts'],
    ['src/server/app.ts', 'src/protocol/scene.ts'],
    ['src/ui/panels.tsx', 'src/protocol/scene.ts'],
    // The model service's client: below editor, meeting, api, ui and the scene loader, above the protocol.
    ['src/editor/saver.ts', 'src/service/client.ts'],
    ['src/meeting/meeting.ts', 'src/service/client.ts'],
    ['src/api/comments.ts', 'src/service/client.ts'],
    ['src/ui/Home.tsx', 'src/service/client.ts'],
    ['src/scene/load-scene.ts', 'src/service/client.ts'],
    ['src/service/client.ts', 'src/protocol/upload.ts'],
  ])('allows %s -> %s', (from, to) => {
    expect(refusing(from, to)).toEqual([]);
  });

  it('refuses import cycles that run, not those of types alone', () => {
    const cycles = forbidden.filter((rule) => rule.to.circular);
    expect(cycles.map((rule) => rule.name)).toEqual(['no-circular']);
    expect((cycles[0]!.to as { viaOnly?: unknown }).viaOnly).toEqual({ dependencyTypesNot: ['type-only'] });
  });
});
