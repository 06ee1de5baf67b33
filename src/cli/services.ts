import { randomUUID } from "node:crypto";
import { Client, Connection } from "@temporalio/client";
import type { Config } from "../config.js";
import type { Database } from "../db/db.js";
import { buildDeps } from "../deps.js";
import type { Deps, Flows } from "../domain/deps.js";
import type { Actor } from "../domain/tenancy/access.js";
import { lookUpRun } from "../infra/run-state.js";
import { createLogger } from "../log.js";
import { createStore } from "../store/store.js";
import { createFlows } from "../temporal/flows.js";
import { withDatabase } from "./database.js";
import { CliError } from "./output.js";

/** A dependency that does not answer within this is reported, not waited for. */
export const CONNECT_TIMEOUT_MS = 5_000;

/** The Temporal frontend and namespace the CLI works with: TEMPORAL_ADDRESS, else the running `npm start`'s. */
export function temporalTarget(config: Config): { address: string; namespace: string } | undefined {
  if (config.temporalAddress) return { address: config.temporalAddress, namespace: config.temporalNamespace };
  const run = lookUpRun(config.dataDir);
  if (run.status !== "running") return undefined;
  return { address: run.state.temporalAddress, namespace: process.env.TEMPORAL_NAMESPACE ? config.temporalNamespace : run.state.temporalNamespace };
}

export async function connectTemporal(config: Config): Promise<Client> {
  const target = temporalTarget(config);
  if (!target) throw new CliError("no Temporal to talk to: set TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE), or run this next to a running `npm start`", "workflow_engine_unavailable");
  const connection = await Connection.connect({ address: target.address, connectTimeout: CONNECT_TIMEOUT_MS }).catch((err: unknown) => {
    throw new CliError(`Temporal at ${target.address} is unreachable (${err instanceof Error ? err.message : String(err)})`, "workflow_engine_unavailable");
  });
  return new Client({ connection, namespace: target.namespace });
}

/**
 * The store the running service shares between its processes: REDIS_URL, else the running `npm start`'s Redis.
 * A service on its in-process store keeps its caches in its own memory, out of the CLI's reach: a change made
 * here is then seen there only once its caches expire (said on stderr).
 */
function storeUrl(config: Config, changesCaches: boolean): string | undefined {
  if (config.redisUrl) return config.redisUrl;
  const run = lookUpRun(config.dataDir);
  if (run.status !== "running") return undefined;
  if (run.state.redisUrl === null && changesCaches)
    console.error(
      "sigil: the running service keeps its caches in its own memory (no REDIS_URL): it sees this change once they expire (tokens within 30 s, sessions within 60 s)",
    );
  return run.state.redisUrl ?? undefined;
}

/** Flows for commands that start none: a call is a bug of the command, said plainly. */
const noFlows = new Proxy({} as Flows, {
  get: (_target, name) => () => Promise.reject(new Error(`this command has no workflow engine connection (Flows.${String(name)})`)),
});

/**
 * Everything domain functions need, connected the way the running service is (its database, its Redis, its
 * Temporal), so that a change made here has the effects of the same change made through the API: audit rows,
 * events, dropped caches, started workflows. Temporal is connected only for commands that start flows;
 * `changesCaches`: the change is one the service's caches hold (tokens, sessions).
 */
export async function withDeps<T>(config: Config, opts: { temporal: boolean; changesCaches?: boolean }, work: (deps: Deps, temporal: Client | undefined) => Promise<T>): Promise<T> {
  return withDatabase(
    config,
    async (db: Database) => {
      const url = storeUrl(config, opts.changesCaches === true);
      const store = await createStore(url, { onError: () => undefined }).catch((err: unknown) => {
        throw new CliError(`Redis at ${url} is unreachable (${err instanceof Error ? err.message : String(err)})`, "store_unavailable");
      });
      let client: Client | undefined;
      try {
        client = opts.temporal ? await connectTemporal(config) : undefined;
        const flows = client ? createFlows(client, config.temporalTaskQueue) : noFlows;
        return await work(buildDeps({ config, db, store, flows, log: createLogger("warn", (line) => process.stderr.write(`${line}\n`)) }), client);
      } finally {
        await client?.connection.close();
        await store.close();
      }
    },
    { migrate: false },
  );
}

/**
 * The actor of a change made from the CLI: no token, member or account (the audit trail shows the change as
 * the service's own, like other changes nobody made through the API), and a request id of its own that the
 * audit rows carry, so an operator finds the command's changes again.
 */
export function cliActor(): Actor {
  return { tokenId: "", memberId: null, accountId: null, requestId: `cli-${randomUUID()}` };
}
