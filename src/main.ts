import { loadConfig } from "./config.js";
import { startRuntime } from "./runtime.js";

/**
 * `tsx src/main.ts [dev|api|worker]`: dev (the default, what `npm start` runs) serves the API and runs the
 * worker in one process on the embedded defaults; api and worker are the production roles.
 */
const mode = process.argv[2] ?? "dev";
if (!["dev", "api", "worker"].includes(mode)) {
  console.error(`unknown mode ${mode}: expected dev, api or worker`);
  process.exit(2);
}

const config = loadConfig();
const runtime = await startRuntime(config, { api: mode !== "worker", worker: mode !== "api" });
if (runtime.port !== undefined) {
  console.log(`\nSigil is running: http://localhost:${runtime.port}  (REST under /api/v0, gRPC and Connect on the same port)`);
  console.log(`Health: http://localhost:${runtime.port}/healthz`);
}
if (runtime.temporalUiUrl) console.log(`Temporal UI: ${runtime.temporalUiUrl}`);
if (mode === "dev") console.log("Create a tenant and an API token: npx sigil bootstrap --json\n");

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    runtime.log.info("shutting down", { signal });
    void runtime.stop().then(() => process.exit(0));
  });
}
