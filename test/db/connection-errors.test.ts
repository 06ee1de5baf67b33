import { afterAll, beforeAll, expect, it } from "vitest";
import { closeDatabase, connectDatabase, type Database } from "../../src/db/db.js";
import { testEnv } from "../setup/env.js";
import { waitFor } from "../support/poll.js";

// pg-pool's end() resolves before its clients' sockets have closed, and pg-promise drops its pool 'error'
// listener when the pool ends; a client's late error (the embedded Postgres stopping right then sends a
// FATAL) is re-emitted on the pool and, with no listener left, crashes the process. src/db/db.ts gives every
// pool a listener that outlives pg-promise's: this emits such an error after the pool has ended.
let killer: Database;
beforeAll(() => {
  killer = connectDatabase(testEnv().databaseUrl, { max: 1 });
});
afterAll(() => closeDatabase(killer));

it("keeps an error listener on connections after their pool has ended", async () => {
  const db = connectDatabase(testEnv().databaseUrl, { max: 1 });
  const sco = await db.connect();
  const client = sco.client;
  sco.done();
  await closeDatabase(db);
  // And an error on it is absorbed rather than thrown as an uncaught exception.
  expect(() => client.emit("error", Object.assign(new Error("terminating connection"), { code: "57P01" }))).not.toThrow();
});

it("goes on serving after the server terminates a connection", async () => {
  const db = connectDatabase(testEnv().databaseUrl, { max: 1 });
  try {
    const { pid } = await db.one<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    expect((await killer.one<{ ok: boolean }>("SELECT pg_terminate_backend($1) AS ok", [pid])).ok).toBe(true);
    await waitFor("the pool to drop the terminated connection", () => db.$pool.totalCount === 0);
    expect((await db.one<{ one: number }>("SELECT 1 AS one")).one).toBe(1);
  } finally {
    await closeDatabase(db);
  }
});
