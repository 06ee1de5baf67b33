import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_WEBHOOK_SETTINGS } from "../../src/config.js";
import { insertEvent } from "../../src/db/repositories/events.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { newWebhookSecret, sealWebhookSecret } from "../../src/domain/webhooks/secret.js";
import { findFreePort } from "../../src/infra/ports.js";
import { SEARCH_ATTRIBUTES } from "../../src/workflows/search-attributes.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { waitFor } from "../support/poll.js";
import { Receiver } from "../support/receiver.js";
import { sdkFor, statusOf } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import { testEnv } from "../setup/env.js";

// The operator CLI as an operator runs it: `node bin/sigil.js ...` in a child process, pointed by its
// environment at the same Postgres, Redis and Temporal as a running service (the test app, whose worker
// polls its task queues), sealing keys shared. What a command changes is then checked through the service.

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const sealingKey = randomBytes(32);
const backupKey = randomBytes(32);

let app: TestApp;
let rx: Receiver;
let t: BootstrapResult;
let dataDir: string;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** The service's settings, as an operator's shell would export them for a production deployment. */
function serviceEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SIGIL_DATA_DIR: dataDir,
    DATABASE_URL: app.config.databaseUrl,
    REDIS_URL: testEnv().redisUrl,
    TEMPORAL_ADDRESS: testEnv().temporalAddress,
    TEMPORAL_NAMESPACE: "default",
    TEMPORAL_TASK_QUEUE: app.config.temporalTaskQueue,
    SIGIL_SEALING_KEYS: `test:${sealingKey.toString("base64")}`,
    SIGIL_BACKUP_SEALING_KEYS: `backup-test:${backupKey.toString("base64")}`,
    ...extra,
  };
}

function sigil(args: string[], env: NodeJS.ProcessEnv = serviceEnv()): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["bin/sigil.js", ...args], { cwd: repoRoot, env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** A command run with --json: its exit code and the one JSON document it printed. */
async function sigilJson(args: string[], env?: NodeJS.ProcessEnv): Promise<{ code: number; body: any; stderr: string }> {
  const r = await sigil([...args, "--json"], env);
  let body: unknown;
  try {
    body = JSON.parse(r.stdout);
  } catch {
    throw new Error(`sigil ${args.join(" ")} --json printed no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
  return { code: r.code, body, stderr: r.stderr };
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "sigil-cli-"));
  // The store without a key prefix: the CLI, like every process of a deployment, uses the shared one as is.
  app = await startTestApp(
    {
      sealingKeys: [{ id: "test", key: sealingKey }],
      backups: { sealingKeys: [{ id: "backup-test", key: backupKey }], cloudDriveUrl: "http://127.0.0.1:9" },
      // One attempt: a message fails at once, ready for a redrive.
      // A request may hang for long: a redelivery is held in flight while a second redrive runs.
      webhooks: { ...DEFAULT_WEBHOOK_SETTINGS, schedule: { live: [0], sandbox: [0] }, dispatcherPollMs: 300, requestTimeoutMs: 120_000 },
    },
    { storePrefix: "" },
  );
  rx = await Receiver.start();
  t = await app.bootstrap({ organizationName: "CLI Org", ownerEmail: `cli-${randomUUID()}@example.com` });
}, 90_000);

afterAll(async () => {
  await rx?.stop();
  await app?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("sigil doctor", () => {
  it("passes against a healthy deployment, naming every dependency it checked", async () => {
    const { code, body } = await sigilJson(["doctor"], serviceEnv({ PUBLIC_URL: "https://id.example.com" }));
    const failed = body.checks.filter((c: { status: string }) => c.status === "fail");
    expect(failed, JSON.stringify(failed)).toEqual([]);
    expect(code).toBe(0);
    expect(body).toMatchObject({ ok: true, role: "production" });
    const byName = Object.fromEntries(body.checks.map((c: { name: string; status: string }) => [c.name, c.status]));
    expect(byName).toMatchObject({
      "production settings": "ok",
      configuration: "ok",
      "sealing keys": "ok",
      PUBLIC_URL: "ok",
      postgres: "ok",
      migrations: "ok",
      redis: "ok",
      temporal: "ok",
      "temporal namespace": "ok",
      "search attributes": "ok",
      [`worker on ${app.config.temporalTaskQueue}`]: "ok",
      [`worker on ${app.config.temporalTaskQueue}-webhooks`]: "ok",
      // No SMTP server or SMS gateway configured: codes would go to the dev mailbox, which production warns about.
      mail: "warn",
      sms: "warn",
    });
  });

  it("fails with what to fix when a dependency is down or no worker polls the queue", async () => {
    const closed = await findFreePort();
    const r = await sigil(["doctor"], serviceEnv({ REDIS_URL: `redis://127.0.0.1:${closed}`, TEMPORAL_TASK_QUEUE: `nobody-${randomUUID()}` }));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`FAIL  redis\\s+redis://127\\.0\\.0\\.1:${closed}`));
    expect(r.stdout).toMatch(/fix: check that this Redis runs/);
    expect(r.stdout).toMatch(/FAIL  worker on nobody-[^\s]+\s+no worker polls this task queue/);
    expect(r.stdout).toMatch(/ok    postgres/);
    expect(r.stdout).toMatch(/check\(s\) failed/);
  });

  it("reports a malformed setting as a failed check rather than crashing", async () => {
    const { code, body } = await sigilJson(["doctor"], serviceEnv({ SIGIL_SEALING_KEYS: "k1:short" }));
    expect(code).toBe(1);
    expect(body.checks).toContainEqual(expect.objectContaining({ name: "configuration", status: "fail", detail: expect.stringContaining("SIGIL_SEALING_KEYS") }));
  });
});

describe("sigil tenants and environments", () => {
  it("lists and shows organizations and environments with their counts", async () => {
    await signInAs(app, t.environmentId);
    const tenants = await sigilJson(["tenants", "list"]);
    expect(tenants.code).toBe(0);
    expect(tenants.body.organizations).toContainEqual(expect.objectContaining({ id: t.organizationId, projects: 1, environments: 2, members: 1 }));

    const shown = await sigil(["tenants", "show", t.organizationId]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(t.environmentId);
    expect(shown.stdout).toContain(t.liveEnvironmentId);

    const listed = await sigilJson(["environments", "list", "--organization", t.organizationId]);
    expect(listed.body.environments.map((e: { id: string }) => e.id).sort()).toEqual([t.environmentId, t.liveEnvironmentId].sort());

    const env = await sigilJson(["environments", "show", t.environmentId]);
    expect(env.code).toBe(0);
    expect(env.body).toMatchObject({ id: t.environmentId, name: "sandbox", organizationId: t.organizationId, users: 1, tokens: 1, liveSessions: 1, webhooks: 0 });
  });

  it("an unknown id is a clear error (exit 1, not_found); a malformed one or a bad flag is a usage error (exit 2)", async () => {
    const unknown = randomUUID();
    const human = await sigil(["environments", "show", unknown]);
    expect(human.code).toBe(1);
    expect(human.stderr.trim()).toBe(`sigil: no environment ${unknown}`);
    const json = await sigilJson(["environments", "show", unknown]);
    expect(json).toMatchObject({ code: 1, body: { error: `no environment ${unknown}`, code: "not_found" } });

    const malformed = await sigil(["environments", "show", "not-a-uuid"]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('environmentId must be a UUID, got "not-a-uuid"');
    expect(malformed.stderr).toContain("usage: sigil environments list");
    const badFlag = await sigilJson(["tenants", "list", "--bogus"]);
    expect(badFlag).toMatchObject({ code: 2, body: { code: "bad_usage" } });
    const bare = await sigil(["tokens"]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("usage: sigil tokens list --environment ID");
  });
});

describe("sigil tokens", () => {
  it("lists tokens without the token or its hash, and revokes one as the API does", async () => {
    const x = await app.bootstrap({ ownerEmail: `cli-tokens-${randomUUID()}@example.com` });
    const listed = await sigil(["tokens", "list", "--environment", x.environmentId, "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const { tokens } = JSON.parse(listed.stdout);
    expect(tokens).toEqual([expect.objectContaining({ id: x.tokenId, name: "bootstrap", scopes: expect.any(Array), lastUsedAt: null })]);
    const hash = (await app.db.one("SELECT encode(token_hash, 'hex') AS h FROM api_tokens WHERE id = $1", [x.tokenId])).h;
    expect(listed.stdout).not.toContain(x.token);
    expect(listed.stdout).not.toContain(hash);

    const before = await call(app.baseUrl, "GET", `/environments/${x.environmentId}/tokens`, { token: x.token });
    expect(before.status).toBe(200);
    const revoked = await sigilJson(["tokens", "revoke", x.tokenId]);
    expect(revoked).toMatchObject({ code: 0, body: { revoked: { tokenId: x.tokenId, kind: "environment" } } });
    // The running service's cached principal is dropped through the shared store.
    await waitFor("token refused", async () => (await call(app.baseUrl, "GET", `/environments/${x.environmentId}/tokens`, { token: x.token })).status === 401);
    const audit = await app.db.one("SELECT request_id, actor_token_id FROM audit_log WHERE action = 'token.deleted' AND resource_id = $1", [x.tokenId]);
    expect(audit).toEqual({ request_id: revoked.body.revoked.requestId, actor_token_id: null });

    const again = await sigilJson(["tokens", "revoke", x.tokenId]);
    expect(again).toMatchObject({ code: 1, body: { code: "not_found" } });
  });
});

const sdk = (jwt: string) => sdkFor(app.baseUrl, jwt);


describe("sigil users and sessions", () => {
  it("finds a user by e-mail or id, and revokes all of its sessions through the domain", async () => {
    const email = `Support-${randomUUID()}@Example.com`;
    const a = await signInAs(app, t.environmentId, email.toLowerCase());
    const b = await signInAs(app, t.environmentId, email.toLowerCase());
    expect(b.userId).toBe(a.userId);
    const found = await sigilJson(["users", "find", "--environment", t.environmentId, "--email", email]);
    expect(found).toMatchObject({ code: 0, body: { users: [{ id: a.userId, email: email.toLowerCase(), liveSessions: 2 }] } });
    const byId = await sigilJson(["users", "find", "--environment", t.environmentId, "--id", a.userId]);
    expect(byId.body.users.map((u: { id: string }) => u.id)).toEqual([a.userId]);
    // A wallet address matches whatever its case (EVM checksummed addresses are mixed case).
    const address = `0x${randomBytes(20).toString("hex").replace(/[a-f]/, "A")}`;
    await app.db.none(
      "INSERT INTO wallets (id, environment_id, user_id, credential_id, name, chain, address, provider) VALUES ($1, $2, $3, $4, 'cli', 'EVM', $5, 'browserExtension')",
      [randomUUID(), t.environmentId, a.userId, randomUUID(), address],
    );
    const byWallet = await sigilJson(["users", "find", "--environment", t.environmentId, "--wallet", address.toLowerCase()]);
    expect(byWallet.body.users).toEqual([expect.objectContaining({ id: a.userId, wallets: [`EVM:${address}`] })]);
    expect(await statusOf(sdk(a.jwt).sessionCheck({ environmentId: t.environmentId }))).toBe(200);

    const revoked = await sigilJson(["sessions", "revoke", "--environment", t.environmentId, "--user", a.userId]);
    expect(revoked).toMatchObject({ code: 0, body: { userId: a.userId, revokedSessions: 2 } });
    expect(await statusOf(sdk(a.jwt).sessionCheck({ environmentId: t.environmentId }))).toBe(401);
    expect(await statusOf(sdk(b.jwt).refreshAuth({ environmentId: t.environmentId }))).toBe(401);
    const audit = await app.db.one("SELECT changes FROM audit_log WHERE action = 'user.sessions.revoked' AND resource_id = $1 AND request_id = $2", [
      a.userId,
      revoked.body.requestId,
    ]);
    expect(audit.changes.after).toEqual({ revokedSessions: 2 });
  });

  it("refuses an unknown user and a search without exactly one identifier", async () => {
    const unknown = await sigilJson(["sessions", "revoke", "--environment", t.environmentId, "--user", randomUUID()]);
    expect(unknown).toMatchObject({ code: 1, body: { error: "user not found", code: "not_found" } });
    const none = await sigil(["users", "find", "--environment", t.environmentId]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("give exactly one of --email, --phone, --wallet, --id");
  });
});

describe("sigil webhooks", () => {
  it("shows the backlog per endpoint and re-drives failed messages once, idempotently", async () => {
    const x = await app.bootstrap({ ownerEmail: `cli-webhooks-${randomUUID()}@example.com` });
    const webhookId = randomUUID();
    await app.db.none(`INSERT INTO webhooks (id, environment_id, url, event_names, secret_sealed, enabled_at) VALUES ($1, $2, $3, $4, $5, now())`, [
      webhookId,
      x.environmentId,
      rx.url("/redrive"),
      ["user.updated"],
      sealWebhookSecret(app.deps.sealer, webhookId, newWebhookSecret()),
    ]);
    // The first attempt fails; the redelivery's request hangs until the test lets it through.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let redeliveryArrived = false;
    rx.script("/redrive", async ({ n }) => {
      if (n === 1) return { status: 500 };
      redeliveryArrived = true;
      await held;
      return { status: 200 };
    });
    await app.db.tx((tx) =>
      insertEvent(tx, {
        environmentId: x.environmentId,
        organizationId: x.organizationId,
        eventName: "user.updated",
        source: "service",
        userId: null,
        resourceType: null,
        resourceId: null,
        data: { id: randomUUID() },
        auditId: null,
      }),
    );
    const message = await waitFor("the failed message", async () =>
      app.db.oneOrNone("SELECT id FROM webhook_messages WHERE webhook_id = $1 AND status = 'failed'", [webhookId]),
    );

    const backlog = await sigilJson(["webhooks", "backlog", "--environment", x.environmentId]);
    expect(backlog.body.endpoints).toEqual([expect.objectContaining({ webhookId, enabled: true, pending: 0, failed: 1, delivered: 0 })]);

    const first = await sigil(["webhooks", "redrive", "--environment", x.environmentId, "--since", "1h", "--json"]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ failed: 1, redriven: [message.id], skipped: [] });
    // Not a terminal: the progress goes to stderr as plain lines, never into the JSON on stdout.
    expect(first.stderr).toContain("redriving: 1/1");

    // Run again while that redelivery is still in flight: the message is still failed, and left alone.
    await waitFor("the redelivery's request", async () => redeliveryArrived);
    const during = await sigilJson(["webhooks", "redrive", "--environment", x.environmentId]);
    expect(during).toMatchObject({ code: 0, body: { failed: 1, redriven: [], skipped: [{ messageId: message.id, webhookId, reason: "redelivery_in_flight" }] } });
    release();
    await waitFor("redelivered", async () => (await app.db.one("SELECT status FROM webhook_messages WHERE id = $1", [message.id])).status === "delivered");
    expect(rx.received("/redrive").map((r) => r.status)).toEqual([500, 200]);
    const audit = await app.db.any("SELECT resource_id FROM audit_log WHERE action = 'webhook_message.redelivered' AND resource_id = $1", [message.id]);
    expect(audit).toHaveLength(1);

    const second = await sigilJson(["webhooks", "redrive", "--environment", x.environmentId]);
    expect(second).toMatchObject({ code: 0, body: { failed: 0, redriven: [] } });
    expect(rx.received("/redrive")).toHaveLength(2);
    const after = await sigilJson(["webhooks", "backlog", "--environment", x.environmentId]);
    expect(after.body.endpoints).toEqual([expect.objectContaining({ webhookId, failed: 0, delivered: 1 })]);
  });

  it("refuses a redrive without an environment, and a malformed --since", async () => {
    const missing = await sigil(["webhooks", "redrive"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--environment is required");
    const since = await sigilJson(["webhooks", "redrive", "--environment", t.environmentId, "--since", "yesterday"]);
    expect(since).toMatchObject({ code: 2, body: { code: "bad_usage" } });
    const endpoint = await sigilJson(["webhooks", "redrive", "--environment", t.environmentId, "--endpoint", randomUUID()]);
    expect(endpoint).toMatchObject({ code: 1, body: { code: "not_found" } });
  });
});

describe("sigil workflows", () => {
  const idleQueue = `cli-idle-${randomUUID()}`;
  const started: string[] = [];
  afterAll(async () => {
    for (const id of started) await app.temporal.workflow.getHandle(id).terminate("test over").catch(() => undefined);
  });

  it("lists an environment's failed workflows and those running past a threshold", async () => {
    const x = await app.bootstrap({ ownerEmail: `cli-workflows-${randomUUID()}@example.com` });
    const attributes = [{ key: { name: SEARCH_ATTRIBUTES.environmentId.name, type: "KEYWORD" as const }, value: x.environmentId }];
    // Nothing polls idleQueue: one times out (ends TimedOut, a failure), the other stays running.
    const timedOut = `cli-test/${randomUUID()}`;
    const running = `cli-test/${randomUUID()}`;
    await app.temporal.workflow.start("cliTestWorkflow", { taskQueue: idleQueue, workflowId: timedOut, workflowExecutionTimeout: "1s", typedSearchAttributes: attributes });
    await app.temporal.workflow.start("cliTestWorkflow", { taskQueue: idleQueue, workflowId: running, typedSearchAttributes: attributes });
    started.push(running);
    const query = `${SEARCH_ATTRIBUTES.environmentId.name} = "${x.environmentId}" AND ExecutionStatus = "TimedOut"`;
    await waitFor("the timed-out workflow in visibility", async () => {
      for await (const _ of app.temporal.workflow.list({ query })) return true;
      return false;
    }, { timeoutMs: 20_000 });

    // Default: failed ones, and running ones older than 10 minutes (none).
    const failed = await sigilJson(["workflows", "list", "--environment", x.environmentId]);
    expect(failed.code, failed.stderr).toBe(0);
    expect(failed.body.workflows).toEqual([expect.objectContaining({ workflowId: timedOut, type: "cliTestWorkflow", status: "TIMED_OUT" })]);

    const stuck = await sigilJson(["workflows", "list", "--environment", x.environmentId, "--status", "stuck", "--older-than", "1s"]);
    expect(stuck.body.workflows).toEqual([expect.objectContaining({ workflowId: running, status: "RUNNING", closeTime: null })]);
    expect(stuck.body.workflows[0].runningForSeconds).toBeGreaterThanOrEqual(1);

    // Another environment sees none of them.
    const other = await sigilJson(["workflows", "list", "--environment", t.environmentId, "--status", "running"]);
    expect(other.body.workflows.map((w: { workflowId: string }) => w.workflowId)).not.toContain(running);
  });

  it("refuses an unknown status", async () => {
    const r = await sigil(["workflows", "list", "--environment", t.environmentId, "--status", "lost"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--status must be one of failed, running, stuck, got "lost"');
  });
});
