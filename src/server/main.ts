import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import { ConfigError, identityNotice, loadServerConfig, publicOrigin } from './config.ts';
import { DEMO_SCENE_ID, WAREHOUSE_SCENE_ID, warehouseNeedsBuild } from './demo-scenes.ts';
import { createInstanceService } from './instances.ts';
import { redactUrl } from './meetings/bus.ts';
import { openStore, removeStoredPrototypeKeys } from './store.ts';

/**
 * `npm run serve` (and `npm start` after building): one process, one port, data in DATA_DIR,
 * a generated demo scene on first start.
 */
async function main(): Promise<void> {
  const config = loadServerConfig();
  const store = await openStore(config);
  // Documents stored before prototype keys were refused (issue 33, item 2) are written back without them.
  const scrubbed = await removeStoredPrototypeKeys(store);
  if (scrubbed.length > 0) console.log(`Removed "__proto__" and "constructor.prototype" keys from ${scrubbed.length} stored scene${scrubbed.length === 1 ? '' : 's'}: ${scrubbed.join(', ')}`);
  // The demo scenes' generators (gltf-transform, the import pipeline) load only on a start that
  // has to make or upgrade one (a restart with both in place answered in 1.5 s instead of 2.1 s here).
  const [demoScene, warehouseScene] = await Promise.all([store.getScene(DEMO_SCENE_ID), store.getScene(WAREHOUSE_SCENE_ID)]);
  const demoCreated = !demoScene && (await (await import('./demo.ts')).ensureDemoScene(store)).created;
  if (!warehouseScene || warehouseNeedsBuild(warehouseScene)) {
    const { ensureWarehouseScene } = await import('./demo-warehouse.ts');
    const warehouse = await ensureWarehouseScene({ config, store, instances: createInstanceService(store) });
    if (warehouse.status === 'created') console.log(`Created the warehouse scene in ${config.dataDir}`);
    if (warehouse.status === 'upgraded') console.log(`Upgraded the warehouse scene in ${config.dataDir}: its racks, pallets, boxes, drums and lamps are now instanced asset groups (the old single model is replaced)`);
  }
  if (demoCreated) console.log(`Created the demo scene in ${config.dataDir}`);

  const app = await createApp(config, store);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new Error(`port ${config.port} is already in use on ${config.host}: stop the other server or start with PORT=<another port>`);
    }
    if (code === 'EACCES') throw new Error(`no permission to listen on port ${config.port}: use a port above 1023 (PORT=8080)`);
    throw error;
  }

  const port = (app.server.address() as AddressInfo).port;
  const origin = publicOrigin(config, port);
  console.log(`Home:   ${origin}/`);
  console.log(`Viewer: ${origin}/embed/${DEMO_SCENE_ID}`);
  console.log(`Warehouse: ${origin}/embed/${WAREHOUSE_SCENE_ID}`);
  console.log(`Meetings: ${config.endpoints.meetings}/{sceneId} (${config.redisUrl ? `shared with other processes through Redis ${redactUrl(config.redisUrl)}` : 'this process only; REDIS_URL links processes'})`);
  console.log(
    `Calls:  ${config.rtc.janusUrl ? `a mesh while a meeting has at most ${config.rtc.meshMax} people, else through the call server (Janus at ${redactUrl(config.rtc.janusUrl)})` : 'peer-to-peer mesh; JANUS_URL adds a call server for larger meetings'}`,
  );
  console.log(`Data:   ${config.dataDir} (${store.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${store.location})`);
  const identity = identityNotice(config);
  if (identity) console.log(identity);

  // A terminal's Ctrl+C reaches this process and its parent (npm start forwards it too): a repeated
  // signal while closing is ignored; a close that hangs is cut short by the timer.
  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    console.log(`${signal}: shutting down`);
    const force = setTimeout(() => {
      console.error('error: the server did not close within 10 s; exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    app
      .close()
      .then(() => store.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(`error: closing the server failed: ${(error as Error).message}`);
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(`error: invalid configuration: ${error.message}`);
  else console.error(`error: ${(error as Error).message ?? String(error)}`);
  process.exit(1);
});
