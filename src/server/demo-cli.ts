import { parseArgs } from 'node:util';
import { ConfigError, loadServerConfig, publicOrigin } from './config.ts';
import type { Store } from './store.ts';

/**
 * `npm run demo -- instances N [--scene ID] [--seed S] [--assets simple|realistic]`: generates a
 * scene of N instances (1 to 1,000,000) of the demo assets into DATA_DIR (or DATABASE_URL) and
 * prints its URLs. With --scene, that scene is created or its instanced groups replaced; --assets
 * picks the asset set (the same layout either way).
 * `npm run demo -- parts N [--scene ID]`: a scene of one model of N part nodes (1 to 200,000; a
 * plant of machines, src/server/demo-parts.ts). Exit codes: 0 done, 1 failed, 2 usage.
 */

/** The asset sets --assets takes (demo-instances-scene.ts's INSTANCE_ASSET_SETS, here without loading it). */
const ASSET_SETS = ['simple', 'realistic'] as const;

const USAGE = `usage: npm run demo -- instances N [--scene ID] [--seed S] [--assets SET]
       npm run demo -- parts N [--scene ID]

  N             how many instances, 1 to 1,000,000 (a city block in a forest: houses, cars, lamps, trees...)
  --scene ID    the scene to create or fill (default: a new id)
  --seed S      the layout's random seed (default 1): the same N and seed give the same scene
  --assets SET  simple (default: low-poly, 90 to 300 triangles an asset) or realistic
                (a tree of ~5,000 triangles, a car of ~10,000, a house of ~3,000); same layout

  parts N       one model of N part nodes, 1 to 200,000 (machines of ten parts in rows, eight
                materials), stored as it comes: drawn through one batch per material

Environment: DATA_DIR (default ./data), DATABASE_URL, PUBLIC_URL, PORT (for the printed URLs).`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { scene: { type: 'string' }, seed: { type: 'string' }, assets: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    console.error(`error: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const [what, count, ...rest] = positionals;
  const n = Number(count?.replace(/[_,]/g, ''));
  const max = what === 'parts' ? 200_000 : 1_000_000;
  if ((what !== 'instances' && what !== 'parts') || rest.length > 0 || !Number.isInteger(n) || n < 1 || n > max) {
    console.error(`error: ${what !== 'instances' && what !== 'parts' ? `unknown demo '${what ?? ''}'` : `N must be a whole number from 1 to ${max.toLocaleString('en-US')} (got '${count ?? ''}')`}\n\n${USAGE}`);
    return 2;
  }
  if (what === 'parts' && (values.seed !== undefined || values.assets !== undefined)) {
    console.error(`error: parts takes only --scene\n\n${USAGE}`);
    return 2;
  }
  const seed = values.seed === undefined ? undefined : Number(values.seed);
  if (seed !== undefined && !Number.isInteger(seed)) {
    console.error(`error: --seed must be a whole number\n\n${USAGE}`);
    return 2;
  }
  const assets = values.assets ?? 'simple';
  if (!(ASSET_SETS as readonly string[]).includes(assets)) {
    console.error(`error: --assets must be one of ${ASSET_SETS.join(', ')} (got '${assets}')\n\n${USAGE}`);
    return 2;
  }
  let config;
  try {
    config = loadServerConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`error: ${error.message}`);
      return 2;
    }
    throw error;
  }
  if (what === 'parts') {
    return makeScene(config, async (store) => {
      const { createPartsScene } = await import('./demo-parts.ts');
      const { scene, ms } = await createPartsScene({ config, store }, n, { sceneId: values.scene });
      return { scene, lines: [`Created '${scene.name}' (scene ${scene._id}) in ${(ms / 1000).toFixed(1)} s`] };
    });
  }
  return makeScene(config, async (store) => {
    // The generator, the store and their dependencies load only for a run that got this far: a
    // usage error is printed at once.
    const [{ createInstancesScene }, { createInstanceService }] = await Promise.all([import('./demo-instances-scene.ts'), import('./instances.ts')]);
    const result = await createInstancesScene({ config, store, instances: createInstanceService(store) }, n, { sceneId: values.scene, seed, assets: assets as (typeof ASSET_SETS)[number] });
    const triangles = result.groups.reduce((sum, g) => sum + g.count * g.triangles, 0);
    return {
      scene: result.scene,
      lines: [
        `Created '${result.scene.name}' (scene ${result.scene._id}) in ${(result.ms / 1000).toFixed(1)} s; asset set: ${result.assets}`,
        ...result.groups.map((g) => `  ${g.groupId}: ${g.count.toLocaleString('en-US')} x ${g.assetId} (${g.triangles.toLocaleString('en-US')} triangles each)`),
        `  ${triangles.toLocaleString('en-US')} triangles in all`,
      ],
    };
  });
}

/** Opens the store, makes a scene in it, prints what was made and the scene's URLs: 0 done, 1 failed. */
async function makeScene(
  config: ReturnType<typeof loadServerConfig>,
  make: (store: Store) => Promise<{ scene: { _id: string }; lines: string[] }>,
): Promise<number> {
  const { openStore } = await import('./store.ts');
  const store = await openStore(config);
  try {
    const { scene, lines } = await make(store);
    const origin = publicOrigin(config);
    for (const line of lines) console.log(line);
    console.log(`Viewer: ${origin}/embed/${scene._id}`);
    console.log(`Editor: ${origin}/edit/${scene._id} (a scene without an owner: use "Duplicate to edit")`);
    return 0;
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    return 1;
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
