import { closeDatabase, connectDatabase } from "../../src/db/db.js";
import { buildDeps } from "../../src/deps.js";
import { createApiHandler } from "../../src/server/app.js";
import { createDualServer } from "../../src/server/listen.js";
import { createStore } from "../../src/store/store.js";
import type { TestApp } from "./app.js";

/**
 * Another api process of the same deployment as `app`: the same Postgres, Redis (key prefix) and config,
 * but its own connections, caches (signing keys, verified tokens) and listener, as a second replica behind
 * a load balancer has. For what must hold across processes (a revocation seen by every replica).
 */
export async function startSecondApi(app: TestApp) {
  const db = connectDatabase(app.config.databaseUrl!, { max: 5 });
  const store = await createStore(app.config.redisUrl, { keyPrefix: app.storePrefix });
  const deps = buildDeps({ config: app.config, db, store, flows: app.deps.flows });
  const server = createDualServer(createApiHandler(deps, []));
  const port = await server.listen(0, "127.0.0.1");
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    deps,
    async stop() {
      await server.close();
      await store.close();
      await closeDatabase(db);
    },
  };
}
