import { parseArgs } from 'node:util';
import { ConfigError, loadServerConfig, publicOrigin } from './config.ts';
import type { ImportError } from './import.ts';

/**
 * `npm run import -- FILE [--scene ID] [--name NAME]`: adds a GLB or glTF file as a model to scene
 * ID (created when missing, a new id when not given), writing into DATA_DIR directly, so it works
 * with or without a running server. Prints the scene id and its viewer URL.
 * Exit codes: 0 done, 1 failed, 2 usage error.
 */

const USAGE = `usage: npm run import -- FILE [--scene ID] [--name NAME] [--no-optimize]

  FILE           a .glb, or a .gltf with its .bin and image files next to it
  --scene ID     add the model to scene ID (created if it does not exist); default: a new scene
  --name NAME    the scene's name (default for a new scene: the file name)
  --no-optimize  store the file as it is (byte for byte for a .glb) instead of validating it with
                 glTF-Validator and optimising it (ids, instancing, meshopt) like an upload

Environment: DATA_DIR (default ./data), DATABASE_URL (PostgreSQL instead of SQLite), PORT and
PUBLIC_URL (for the printed URL), MAX_ASSET_BYTES.`;

function usageError(message: string): never {
  console.error(`error: ${message}\n\n${USAGE}`);
  process.exit(2);
}

async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        scene: { type: 'string' },
        name: { type: 'string' },
        'no-optimize': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    usageError((error as Error).message);
  }
  if (parsed.values.help) {
    console.log(USAGE);
    return;
  }
  if (parsed.positionals.length === 0) usageError('missing FILE');
  if (parsed.positionals.length > 1) usageError(`expected one FILE, got ${parsed.positionals.length}: ${parsed.positionals.join(' ')}`);
  const sceneId = parsed.values.scene;
  if (sceneId !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(sceneId)) {
    usageError(`invalid scene id '${sceneId}': use 1-64 characters of A-Z a-z 0-9 _ -`);
  }
  const name = parsed.values.name;
  if (name !== undefined && name.trim() === '') usageError('--name must not be empty');

  const config = loadServerConfig();
  // The import pipeline (validator, gltf-transform, encoders) and the store load only for a run that
  // got this far: a usage error is printed at once.
  const [{ importModel }, { openStore }] = await Promise.all([import('./import.ts'), import('./store.ts')]);
  const store = await openStore(config);
  const { scene, model, validation, optimization } = await importModel(
    store,
    { path: parsed.positionals[0] },
    { sceneId, name, maxBytes: config.maxAssetBytes, optimize: !parsed.values['no-optimize'] },
  );
  console.log(`Imported ${model.sourceFileName} as model ${model._id} (version ${model.latestVersionKey})`);
  if (validation) console.log(`Validator: ${validation.errors} errors (${validation.repaired} repaired), ${validation.warnings} warnings`);
  if (optimization) {
    console.log(`Optimised: ${optimization.inputBytes} -> ${optimization.outputBytes} bytes, ${optimization.nodesBefore} -> ${optimization.nodesAfter} nodes, ${optimization.instances} nodes instanced`);
  }
  console.log(`Scene: ${scene._id} (${scene.name}, ${scene.models.length} model${scene.models.length === 1 ? '' : 's'})`);
  console.log(`Viewer: ${publicOrigin(config)}/embed/${scene._id}`);
  await store.close();
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message = error instanceof ConfigError ? `invalid configuration: ${error.message}` : (error as Error).message;
  console.error(`error: ${message}`);
  const report = error instanceof Error && error.name === 'ImportError' ? (error as ImportError).report : undefined;
  for (const m of report?.messages.filter((m) => m.severity === 'error' && !m.repaired).slice(0, 10) ?? []) {
    console.error(`  ${m.code} ${m.pointer ?? ''}: ${m.message}`);
  }
  process.exit(1);
});
