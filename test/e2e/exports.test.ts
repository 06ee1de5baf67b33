import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { Worker, NativeConnection } from "@temporalio/worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createActivities } from "../../src/activities/index.js";
import type { Deps } from "../../src/domain/deps.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { ExportsService } from "../../src/gen/sigil/exports/v0/exports_service_pb.js";
import { createLogger } from "../../src/log.js";
import { createApiHandler } from "../../src/server/app.js";
import { createDualServer } from "../../src/server/listen.js";
import { createFlows } from "../../src/temporal/flows.js";
import { workflowIds } from "../../src/temporal/ids.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { waitFor } from "../support/poll.js";
import { testWorkflowBundle } from "../support/workflow-bundle.js";

const COLUMNS = ["id", "email", "phoneNumber", "alias", "firstName", "lastName", "username", "createdAt", "updatedAt", "walletAddresses"];
const USERS = 300;

let app: TestApp;
let t: BootstrapResult;
let other: BootstrapResult;
/** Extra api servers (over app's database and store, with other flows), stopped after the file. */
let servers: { stop(): Promise<void> }[] = [];
let dlBase: string;

/** An api server over app's database and store with the given deps (its flows, its limits). */
async function serveWith(deps: Deps): Promise<string> {
  const server = createDualServer(createApiHandler(deps, []));
  const port = await server.listen(0, "127.0.0.1");
  servers.push({ stop: () => server.close() });
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap({ ownerEmail: `exports-${randomUUID()}@example.com` });
  other = await app.bootstrap({ ownerEmail: `exports-other-${randomUUID()}@example.com` });
  dlBase = await serveWith(app.deps);
  // Users with awkward text (separators, quotes, line breaks, non-ASCII), some wallets, one deleted user,
  // and another tenant's users that must never appear.
  await app.db.none(
    `INSERT INTO users (id, environment_id, email, phone_number, alias, first_name, last_name, username, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'user' || i || '@example.com', CASE WHEN i % 3 = 0 THEN '+4915' || lpad(i::text, 8, '0') END,
            CASE WHEN i % 5 = 0 THEN 'al"ias, ' || i END, CASE WHEN i % 7 = 0 THEN E'multi\\nline ' || i ELSE 'Zoë ' || i END,
            CASE WHEN i % 11 = 0 THEN E'semi;colon\\r\\ncrlf' END, 'u' || i,
            timestamptz '2025-01-01T00:00:00Z' + i * interval '1 minute', timestamptz '2025-02-01T00:00:00Z'
     FROM generate_series(1, $2) i`,
    [t.environmentId, USERS],
  );
  await app.db.none(
    `INSERT INTO wallets (id, environment_id, user_id, credential_id, name, chain, address, provider, created_at)
     SELECT gen_random_uuid(), u.environment_id, u.id, gen_random_uuid(), 'metamask', c.chain, c.chain || '-' || u.username, 'browserExtension',
            now() + CASE c.chain WHEN 'SOL' THEN interval '1 second' ELSE interval '0' END
     FROM users u CROSS JOIN (VALUES ('EVM'), ('SOL')) c(chain)
     WHERE u.environment_id = $1 AND (u.username = 'u1' OR u.username = 'u2' OR (u.username = 'u3' AND c.chain = 'EVM'))`,
    [t.environmentId],
  );
  await app.db.none(
    `INSERT INTO users (id, environment_id, email, deleted_at) VALUES (gen_random_uuid(), $1, 'deleted@example.com', now())`,
    [t.environmentId],
  );
  await app.db.none(`INSERT INTO users (id, environment_id, email) VALUES (gen_random_uuid(), $1, 'stranger@example.com')`, [other.environmentId]);
}, 60_000);
afterAll(async () => {
  for (const s of servers) await s.stop();
  await app?.stop();
});

/** RFC 4180 CSV: quoted fields may hold commas, doubled quotes and line breaks; records end with \r\n or \n. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"') {
      if (field !== "") throw new Error(`stray quote at ${i}`);
      quoted = true;
    } else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      record.push(field);
      records.push(record);
      record = [];
      field = "";
    } else field += c;
    i++;
  }
  if (quoted) throw new Error("unterminated quoted field");
  if (field !== "" || record.length) {
    record.push(field);
    records.push(record);
  }
  return records;
}

async function createExport(body: Record<string, unknown>, token = t.token, base = app.baseUrl) {
  const res = await call(base, "POST", `/environments/${t.environmentId}/exports`, { token, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function waitForExport(exportId: string, status: string, timeoutMs = 30_000) {
  const exportNow = async () => {
    const res = await call(app.baseUrl, "GET", `/environments/${t.environmentId}/exports/${exportId}`, { token: t.token });
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  return waitFor(`export ${exportId} to be ${status}`, exportNow, { until: (body) => body.status === status, timeoutMs, intervalMs: 150 });
}

async function download(exportId: string, token = t.token, base = dlBase) {
  const res = await fetch(`${base}/api/v0/environments/${t.environmentId}/exports/${exportId}/download`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: bytes.toString("utf8") };
}

/** What the export must contain, read straight from the database. */
async function expectedUsers() {
  return app.db.any(
    `SELECT u.id, u.email, u.phone_number, u.alias, u.first_name, u.last_name, u.username, u.created_at, u.updated_at,
            coalesce((SELECT string_agg(w.chain || ':' || w.address, ' ' ORDER BY w.created_at, w.id) FROM wallets w
                      WHERE w.user_id = u.id AND w.deleted_at IS NULL), '') AS wallets
     FROM users u WHERE u.environment_id = $1 AND u.deleted_at IS NULL ORDER BY u.created_at DESC, u.id`,
    [t.environmentId],
  );
}

describe("POST /environments/{environmentId}/exports and the export workflow", () => {
  it("exports every user as CSV, downloadable over REST and parsed back exactly", async () => {
    const created = await createExport({ format: "csv", model: "users" });
    expect(created).toMatchObject({ status: "pending", format: "csv", model: "users", environmentId: t.environmentId, rowCount: 0 });
    expect(created.completedAt).toBeNull();
    const done = await waitForExport(created.id, "completed");
    const expected = await expectedUsers();
    expect(done.rowCount).toBe(expected.length);
    expect(expected.length).toBe(USERS);
    expect(done.startedAt).not.toBeNull();
    expect(done.completedAt).not.toBeNull();
    expect(done.filename).toBe(`users-${created.id}.csv`);

    const file = await download(created.id);
    expect(file.status, file.text.slice(0, 200)).toBe(200);
    expect(file.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="users-${created.id}.csv"`);
    expect(file.bytes.length).toBe(Number(done.byteSize));
    const [header, ...rows] = parseCsv(file.text);
    expect(header).toEqual(COLUMNS);
    expect(rows).toHaveLength(expected.length);
    rows.forEach((row, i) => {
      const u = expected[i];
      expect(row).toEqual([
        u.id,
        u.email ?? "",
        u.phone_number ?? "",
        u.alias ?? "",
        u.first_name ?? "",
        u.last_name ?? "",
        u.username ?? "",
        u.created_at.toISOString(),
        u.updated_at.toISOString(),
        u.wallets,
      ]);
    });
    // The awkward values really were in the file (the parser did not just see empty fields).
    expect(rows.some((r) => r[4]!.includes("\n"))).toBe(true);
    expect(rows.some((r) => r[3]!.includes('"'))).toBe(true);
    expect(rows.find((r) => r[6] === "u1")![9]).toBe("EVM:EVM-u1 SOL:SOL-u1");
    expect(file.text).not.toContain("deleted@example.com");
    expect(file.text).not.toContain("stranger@example.com");
  });

  it("exports JSON: one array of users with their wallet addresses, no secrets", async () => {
    const created = await createExport({ format: "json", model: "users" });
    const done = await waitForExport(created.id, "completed");
    const file = await download(created.id);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="users-${created.id}.json"`);
    expect(file.bytes.length).toBe(Number(done.byteSize));
    const users = JSON.parse(file.text);
    const expected = await expectedUsers();
    expect(users).toHaveLength(expected.length);
    expect(done.rowCount).toBe(expected.length);
    users.forEach((u: any, i: number) => {
      expect(Object.keys(u)).toEqual(COLUMNS);
      expect(u.id).toBe(expected[i].id);
      expect(u.firstName).toBe(expected[i].first_name);
      expect(u.lastName).toBe(expected[i].last_name);
      expect(u.createdAt).toBe(expected[i].created_at.toISOString());
    });
    const u3 = users.find((u: any) => u.username === "u3");
    expect(u3.walletAddresses).toEqual([{ chain: "EVM", address: "EVM-u3" }]);
    expect(users.find((u: any) => u.username === "u4").walletAddresses).toEqual([]);
  });

  it("applies the filter", async () => {
    const created = await createExport({ format: "json", model: "users", filter: { filterColumn: "email", filterValue: "USER1" } });
    await waitForExport(created.id, "completed");
    const users = JSON.parse((await download(created.id)).text);
    const n = await app.db.one(`SELECT count(*) AS n FROM users WHERE environment_id = $1 AND deleted_at IS NULL AND email ILIKE '%user1%'`, [
      t.environmentId,
    ]);
    expect(n.n).toBeGreaterThan(10);
    expect(users).toHaveLength(n.n);
    expect(users.every((u: any) => u.email.includes("user1"))).toBe(true);

    const byWallet = await createExport({ format: "csv", model: "users", filter: { filterColumn: "walletPublicKey", filterValue: "sol-u2" } });
    const done = await waitForExport(byWallet.id, "completed");
    expect(done.rowCount).toBe(1);
    expect(done.filter).toMatchObject({ filterColumn: "walletPublicKey", filterValue: "sol-u2" });
    const rows = parseCsv((await download(byWallet.id)).text);
    expect(rows.slice(1).map((r) => r[6])).toEqual(["u2"]);

    const window = await createExport({
      format: "json",
      model: "users",
      filter: { createdAfter: "2025-01-01T00:10:00Z", createdBefore: "2025-01-01T00:20:00Z" },
    });
    expect((await waitForExport(window.id, "completed")).rowCount).toBe(10);
  });

  it("records the creation in the audit log", async () => {
    const created = await createExport({ format: "csv", model: "users" });
    const rows = await app.db.any(`SELECT * FROM audit_log WHERE resource_type = 'export' AND resource_id = $1`, [created.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ action: "export.created", environment_id: t.environmentId, actor_token_id: t.tokenId });
    expect(rows[0].changes.after).toMatchObject({ id: created.id, format: "csv", model: "users", status: "pending" });
    await waitForExport(created.id, "completed");
  });

  it("rejects bad input with 400 and stores nothing", async () => {
    const count = async () => (await app.db.one(`SELECT count(*) AS n FROM exports WHERE environment_id = $1`, [t.environmentId])).n;
    const before = await count();
    const audits = (await app.db.one(`SELECT count(*) AS n FROM audit_log WHERE environment_id = $1`, [t.environmentId])).n;
    for (const body of [
      { format: "xml", model: "users" },
      { format: "csv", model: "wallets" },
      { model: "users" },
      { format: "csv" },
      { format: "csv", model: "users", filter: { filterColumn: "password", filterValue: "x" } },
      { format: "csv", model: "users", filter: { filterColumn: "id", filterValue: "not-a-uuid" } },
      { format: "csv", model: "users", filter: { createdAfter: "2025-02-01T00:00:00Z", createdBefore: "2025-01-01T00:00:00Z" } },
      { format: "csv", model: "users", filter: { filterValue: "x".repeat(256) } },
    ]) {
      const res = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/exports`, { token: t.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
    expect(await count()).toBe(before);
    expect((await app.db.one(`SELECT count(*) AS n FROM audit_log WHERE environment_id = $1`, [t.environmentId])).n).toBe(audits);
  });
});

describe("status, listing and download rules", () => {
  it("answers 422 export_not_ready before completion, over the raw route and the RPC", async () => {
    const id = randomUUID();
    await app.db.none(`INSERT INTO exports (id, environment_id, model, format) VALUES ($1, $2, 'users', 'csv')`, [id, t.environmentId]);
    const raw = await download(id);
    expect(raw.status).toBe(422);
    expect(JSON.parse(raw.text)).toMatchObject({ code: "export_not_ready", error: expect.any(String) });
    // The gateway's binding of DownloadExport (what serves REST where the raw route is not mounted).
    const viaGateway = await call(app.baseUrl, "GET", `/environments/${t.environmentId}/exports/${id}/download`, { token: t.token });
    expect(viaGateway.status).toBe(422);
    expect(viaGateway.body.code).toBe("export_not_ready");
    await app.db.none(`UPDATE exports SET status = 'failed', error = 'boom' WHERE id = $1`, [id]);
    expect((await download(id)).status).toBe(422);
  });

  it("keeps an export pending while no worker runs, and completes it once one starts", async () => {
    const taskQueue = `exports-late-${randomUUID()}`;
    const base = await serveWith({ ...app.deps, flows: createFlows(app.temporal, taskQueue) });
    const created = await createExport({ format: "json", model: "users" }, t.token, base);
    // Nothing to wait for: the test is that the export stays pending for this time without a worker.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await waitForExport(created.id, "pending")).status).toBe("pending");
    expect((await download(created.id)).status).toBe(422);
    // The workflow exists under its readable id, waiting for a worker.
    const handle = app.temporal.workflow.getHandle(workflowIds.export(created.id));
    expect((await handle.describe()).status.name).toBe("RUNNING");

    const connection = await NativeConnection.connect({ address: app.config.temporalAddress! });
    const worker = await Worker.create({
      connection,
      namespace: app.config.temporalNamespace,
      taskQueue,
      activities: createActivities(app.deps),
      workflowBundle: await testWorkflowBundle(),
    });
    try {
      await worker.runUntil(async () => {
        const done = await waitForExport(created.id, "completed");
        expect(done.rowCount).toBe(USERS);
        expect(JSON.parse((await download(created.id)).text)).toHaveLength(USERS);
        expect((await handle.result()).status).toBe("completed");
      });
    } finally {
      await connection.close();
    }
  }, 90_000);

  it("marks the export failed when its workflow cannot be started", async () => {
    const base = await serveWith({
      ...app.deps,
      flows: { ...app.deps.flows, startExport: async () => Promise.reject(new Error("temporal unreachable")) },
    });
    const created = await createExport({ format: "csv", model: "users" }, t.token, base);
    expect(created.status).toBe("failed");
    expect(created.error).toMatch(/could not be started/);
    const row = await app.db.one(`SELECT status FROM exports WHERE id = $1`, [created.id]);
    expect(row.status).toBe("failed");
  });

  it("lists exports newest first with the total count and paging", async () => {
    const res = await call(app.baseUrl, "GET", `/environments/${t.environmentId}/exports`, { token: t.token });
    expect(res.status).toBe(200);
    const n = (await app.db.one(`SELECT count(*) AS n FROM exports WHERE environment_id = $1`, [t.environmentId])).n;
    expect(res.body.count).toBe(n);
    expect(res.body.exports).toHaveLength(n);
    const times = res.body.exports.map((e: any) => Date.parse(e.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const page = await call(app.baseUrl, "GET", `/environments/${t.environmentId}/exports?limit=2&offset=1`, { token: t.token });
    expect(page.body.count).toBe(n);
    expect(page.body.exports.map((e: any) => e.id)).toEqual(res.body.exports.slice(1, 3).map((e: any) => e.id));
    expect((await call(app.baseUrl, "GET", `/environments/${t.environmentId}/exports?limit=5000`, { token: t.token })).status).toBe(400);
  });

  it("answers 404 to other tenants and 401 without a token, on every export path", async () => {
    const created = await createExport({ format: "csv", model: "users" });
    await waitForExport(created.id, "completed");
    for (const token of [other.token, other.memberToken]) {
      for (const p of [`/environments/${t.environmentId}/exports`, `/environments/${t.environmentId}/exports/${created.id}`]) {
        const res = await call(app.baseUrl, "GET", p, { token });
        expect(res.status, p).toBe(404);
        expect(res.body.code).toBe("not_found");
      }
      const post = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/exports`, { token, body: { format: "csv", model: "users" } });
      expect(post.status).toBe(404);
      const raw = await download(created.id, token);
      expect(raw.status).toBe(404);
      expect(JSON.parse(raw.text).code).toBe("not_found");
      // The other tenant's own environment does not hold this export either.
      const own = await call(app.baseUrl, "GET", `/environments/${other.environmentId}/exports/${created.id}`, { token });
      expect(own.status).toBe(404);
    }
    const anonymous = await download(created.id, "");
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.text).code).toBe("unauthorized");
    const bad = await fetch(`${dlBase}/api/v0/environments/${t.environmentId}/exports/nope/download`, { headers: { authorization: `Bearer ${t.token}` } });
    expect(bad.status).toBe(400);
    // The owner's member token reaches it.
    expect((await download(created.id, t.memberToken)).status).toBe(200);
  });
});

describe("large exports", () => {
  let big: BootstrapResult;
  const BIG = 16_000;
  let bundle: Awaited<ReturnType<typeof testWorkflowBundle>>;

  beforeAll(async () => {
    big = await app.bootstrap({ ownerEmail: `exports-big-${randomUUID()}@example.com` });
    // ~330 bytes a row: about 5 MiB of CSV, several stored chunks and more than one RPC message allows.
    await app.db.none(
      `INSERT INTO users (id, environment_id, email, first_name, created_at)
       SELECT gen_random_uuid(), $1, 'big' || i || '@example.com', repeat('x', 200) || i, timestamptz '2025-01-01T00:00:00Z' + i * interval '1 second'
       FROM generate_series(1, $2) i`,
      [big.environmentId, BIG],
    );
    bundle = await testWorkflowBundle();
  }, 60_000);

  const bigCall = (method: string, p: string, body?: unknown, base = app.baseUrl) =>
    call(base, method, `/environments/${big.environmentId}${p}`, { token: big.token, body });
  async function bigWait(id: string, timeoutMs = 60_000) {
    const exportNow = async () => {
      const res = await bigCall("GET", `/exports/${id}`);
      // A failed export will not complete: fail now, naming it.
      expect(res.body.status, `export ${id}`).not.toBe("failed");
      return res.body;
    };
    return waitFor(`export ${id} to complete`, exportNow, { until: (body) => body.status === "completed", timeoutMs, intervalMs: 200 });
  }
  const chunkSeqs = async (id: string) =>
    (await app.db.any(`SELECT seq, length(data) AS n FROM export_chunks WHERE export_id = $1 ORDER BY seq`, [id])) as { seq: number; n: number }[];

  it("stores ~1 MiB chunks, streams them over REST and gRPC, and refuses one-message downloads past 4 MiB", async () => {
    const created = (await bigCall("POST", "/exports", { format: "csv", model: "users" })).body;
    const done = await bigWait(created.id);
    expect(done.rowCount).toBe(BIG);
    const chunks = await chunkSeqs(created.id);
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    expect(chunks.map((c) => c.seq)).toEqual(chunks.map((_, i) => i));
    for (const c of chunks.slice(0, -1)) expect(c.n).toBeGreaterThanOrEqual(1024 * 1024);
    expect(chunks.reduce((n, c) => n + c.n, 0)).toBe(Number(done.byteSize));

    const res = await fetch(`${dlBase}/api/v0/environments/${big.environmentId}/exports/${created.id}/download`, {
      headers: { authorization: `Bearer ${big.token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe(String(done.byteSize));
    const text = await res.text();
    const rows = parseCsv(text);
    expect(rows).toHaveLength(BIG + 1);
    expect(new Set(rows.slice(1).map((r) => r[0])).size).toBe(BIG);

    const headers = { authorization: `Bearer ${big.token}` };
    const grpc = createClient(ExportsService, createGrpcTransport({ baseUrl: app.baseUrl }));
    let messages = 0;
    const parts: Uint8Array[] = [];
    for await (const m of grpc.streamExport({ environmentId: big.environmentId, exportId: created.id }, { headers })) {
      messages++;
      parts.push(m.data);
    }
    expect(messages).toBe(chunks.length);
    expect(Buffer.concat(parts).toString("utf8")).toBe(text);
    await expect(grpc.downloadExport({ environmentId: big.environmentId, exportId: created.id }, { headers })).rejects.toMatchObject({
      code: 9 /* FailedPrecondition: 422 export_too_large */,
    });
  }, 90_000);

  it("survives a worker restart in the middle of writing the file", async () => {
    const taskQueue = `exports-restart-${randomUUID()}`;
    const base = await serveWith({ ...app.deps, flows: createFlows(app.temporal, taskQueue) });
    const created = (await bigCall("POST", "/exports", { format: "json", model: "users" }, base)).body;
    expect(created.status).toBe("pending");
    // An uncommitted chunk 2 makes the first attempt block when it reaches that chunk, after storing 0 and 1:
    // a worker caught mid-file, deterministically.
    let release!: () => void;
    let inserted!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const blocking = new Promise<void>((r) => (inserted = r));
    const blocker = app.db
      .tx(async (tx) => {
        await tx.none(`INSERT INTO export_chunks (export_id, environment_id, seq, data) VALUES ($1, $2, 2, '')`, [created.id, big.environmentId]);
        inserted();
        await released;
        throw new Error("rollback");
      })
      .catch(() => {});
    await blocking;

    const connection = await NativeConnection.connect({ address: app.config.temporalAddress! });
    const newWorker = () =>
      Worker.create({ connection, namespace: app.config.temporalNamespace, taskQueue, activities: createActivities(app.deps), workflowBundle: bundle });
    try {
      const first = await newWorker();
      const firstRun = first.run();
      await waitFor("the first attempt's first two chunks", async () => (await chunkSeqs(created.id)).length >= 2, { timeoutMs: 30_000, intervalMs: 50 });
      expect((await bigCall("GET", `/exports/${created.id}`)).body.phase).toBe("running");
      // Stop the first worker mid-file, then let its blocked write go: it must not corrupt the file.
      first.shutdown();
      release();
      await firstRun;
      await blocker;

      const second = await newWorker();
      await second.runUntil(async () => {
        const done = await bigWait(created.id, 80_000);
        expect(done.rowCount).toBe(BIG);
      });
      const attempt = await app.db.one(`SELECT run_attempt FROM exports WHERE id = $1`, [created.id]);
      expect(attempt.run_attempt).toBeGreaterThanOrEqual(2);
      const chunks = await chunkSeqs(created.id);
      expect(chunks.map((c) => c.seq)).toEqual(chunks.map((_, i) => i));
      const users = await fetchBig(created.id);
      expect(users).toHaveLength(BIG);
      expect(new Set(users.map((u: any) => u.id)).size).toBe(BIG);
    } finally {
      release();
      await connection.close();
    }

    async function fetchBig(id: string) {
      const r = await fetch(`${dlBase}/api/v0/environments/${big.environmentId}/exports/${id}/download`, { headers: { authorization: `Bearer ${big.token}` } });
      return JSON.parse(await r.text());
    }
  }, 120_000);
});

describe("over Connect and gRPC", () => {
  it("reads an export and streams its file in chunks", async () => {
    const created = await createExport({ format: "csv", model: "users" });
    await waitForExport(created.id, "completed");
    const rest = await download(created.id);
    const headers = { authorization: `Bearer ${t.token}` };

    const grpc = createClient(ExportsService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const got = await grpc.getExport({ environmentId: t.environmentId, exportId: created.id }, { headers });
    expect(got.export?.status).toBe("completed");
    expect(got.export?.byteSize).toBe(BigInt(rest.bytes.length));

    const parts: Uint8Array[] = [];
    let first: { contentType: string; filename: string } | undefined;
    for await (const msg of grpc.streamExport({ environmentId: t.environmentId, exportId: created.id }, { headers })) {
      first ??= { contentType: msg.contentType, filename: msg.filename };
      parts.push(msg.data);
    }
    expect(first).toEqual({ contentType: "text/csv; charset=utf-8", filename: `users-${created.id}.csv` });
    expect(Buffer.concat(parts).equals(rest.bytes)).toBe(true);

    const connect = createClient(ExportsService, createConnectTransport({ baseUrl: app.baseUrl, httpVersion: "1.1" }));
    const whole = await connect.downloadExport({ environmentId: t.environmentId, exportId: created.id }, { headers });
    expect(whole.file?.contentType).toBe("text/csv; charset=utf-8");
    expect(Buffer.from(whole.file!.data).equals(rest.bytes)).toBe(true);

    await expect(
      grpc.getExport({ environmentId: t.environmentId, exportId: created.id }, { headers: { authorization: `Bearer ${other.token}` } }),
    ).rejects.toMatchObject({ code: 5 /* NotFound */ });
    const stream = grpc.streamExport({ environmentId: t.environmentId, exportId: "bad" }, { headers });
    await expect((async () => { for await (const _ of stream); })()).rejects.toMatchObject({ code: 3 /* InvalidArgument */ });
  });
});

describe("the REST download runs through the same chain as every call", () => {
  it("is logged with its request id, tenant-checked and rate-limited", async () => {
    const lines: Record<string, unknown>[] = [];
    const log = createLogger("info", (line) => lines.push(JSON.parse(line)));
    const created = await createExport({ format: "csv", model: "users" });
    await waitForExport(created.id, "completed");

    const logged = await serveWith({ ...app.deps, log });
    const ok = await fetch(`${logged}/api/v0/environments/${t.environmentId}/exports/${created.id}/download`, {
      headers: { authorization: `Bearer ${t.token}`, "x-request-id": "download-log-1" },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-request-id")).toBe("download-log-1");
    expect(ok.headers.get("content-disposition")).toBe(`attachment; filename="users-${created.id}.csv"`);
    await ok.arrayBuffer();
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: "http", requestId: "download-log-1", method: "GET", route: "/api/v0/environments/{environment_id}/exports/{export_id}/download", status: 200 }),
    );

    // A tenant whose token nothing else uses: every call counts against its window of 3 per minute.
    const r = await app.bootstrap({ ownerEmail: `exports-limit-${randomUUID()}@example.com` });
    const limited = await serveWith({ ...app.deps, config: { ...app.config, rateLimitPerMinute: 3 } });
    const get = () =>
      fetch(`${limited}/api/v0/environments/${t.environmentId}/exports/${created.id}/download`, { headers: { authorization: `Bearer ${r.token}` } });
    for (let i = 0; i < 3; i++) {
      const res = await get();
      expect(res.status).toBe(404); // another tenant's export does not exist for r
      expect((await res.json()).code).toBe("not_found");
    }
    const over = await get();
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

