import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withErrors } from "../../scripts/declare-errors.js";
import type { UndeclaredErrorSettings } from "../../src/config.js";
import { conflict, ERROR_CODE_HEADER, ERROR_PAYLOAD_HEADER, kindToHttpStatus, notFound } from "../../src/errors.js";
import { createRestGateway } from "../../src/gateway/index.js";
import { AuthMode } from "../../src/gen/sigil/options/v0/options_pb.js";
import { UsersService } from "../../src/gen/sigil/users/v0/users_service_pb.js";
import { createLogger } from "../../src/log.js";
import { declaredErrors } from "../../src/rpc/declared-errors.js";
import { errorInterceptor } from "../../src/rpc/interceptors/errors.js";
import { authModeOf, methodRules } from "../../src/rpc/method-options.js";
import { apiServices } from "../../src/rpc/routes.js";
import { tenantPlanOf } from "../../src/rpc/tenant-rules.js";

const root = path.resolve(import.meta.dirname, "../..");
const methods: DescMethod[] = apiServices.flatMap((s) => s.methods);
const fullName = (m: DescMethod) => `${m.parent.typeName}.${m.name}`;
const has = (m: DescMethod, code: string, status: number) => declaredErrors(m).some((e) => e.code === code && e.status === status);

/**
 * A real RPC (CreateUser) whose handler throws what the test says, behind the error interceptor with the
 * given settings, over Connect and over the REST gateway: the error path as the service runs it, without
 * the servers (authentication, tenancy and the domain are not what is tested here).
 */
async function serve(settings: UndeclaredErrorSettings) {
  const lines: string[] = [];
  const log = createLogger("warn", (l) => lines.push(l));
  const routes = (router: Parameters<Parameters<typeof createRouterTransport>[0]>[0]) =>
    router.service(UsersService, {
      createUser(req) {
        // An id that is not the caller's: the tenancy rule's 404, implied by the declaration.
        if (req.email === "implied@example.com") throw notFound("environment");
        throw conflict("probe_not_declared", "a code no RPC declares");
      },
    });
  const transport = createRouterTransport(routes, { router: { interceptors: [errorInterceptor(log, settings)] } });
  const server = http.createServer(createRestGateway({ services: [UsersService], transport, maxBodyBytes: 4096 }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const rest = (email: string) =>
    fetch(`${url}/api/v0/environments/00000000-0000-4000-8000-000000000000/users`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email }),
    });
  return { client: createClient(UsersService, transport), rest, lines, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe("an error the RPC does not declare", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "declared-errors-test-"));
  const logFile = path.join(dir, "undeclared.jsonl");
  let enforced: Awaited<ReturnType<typeof serve>>;
  let warned: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    enforced = await serve({ enforce: true, logFile });
    warned = await serve({ enforce: false, logFile: path.join(dir, "warned.jsonl") });
  });
  afterAll(async () => {
    await enforced?.close();
    await warned?.close();
  });

  it("is answered 500 undeclared_error under enforcement, naming the code, status and RPC (REST)", async () => {
    const res = await enforced.rest("probe@example.com");
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: expect.stringContaining('add {code: "probe_not_declared", status: 409}'),
      code: "undeclared_error",
      payload: { method: "sigil.users.v0.UsersService.CreateUser", code: "probe_not_declared", status: 409 },
    });
  });

  it("is answered INTERNAL with the same code and payload over Connect", async () => {
    const err = await enforced.client.createUser({ environmentId: "e", email: "probe@example.com" }).then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
    expect(err?.code).toBe(Code.Internal);
    expect(err?.metadata.get(ERROR_CODE_HEADER)).toBe("undeclared_error");
    expect(JSON.parse(decodeURIComponent(err?.metadata.get(ERROR_PAYLOAD_HEADER) ?? "{}"))).toMatchObject({ code: "probe_not_declared", status: 409 });
  });

  it("is recorded once per RPC, code and status as a JSON line of the log file", () => {
    const records = readFileSync(logFile, "utf8").trim().split("\n").map((l) => JSON.parse(l) as unknown);
    expect(records).toEqual([{ method: "sigil.users.v0.UsersService.CreateUser", code: "probe_not_declared", status: 409 }]);
  });

  it("a declared (here: implied) error passes unchanged", async () => {
    const res = await enforced.rest("implied@example.com");
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe("not_found");
  });

  it("without enforcement (production) is answered as thrown, recorded, and warned about once", async () => {
    for (let i = 0; i < 2; i++) {
      const res = await warned.rest("probe@example.com");
      expect(res.status).toBe(409);
      expect(((await res.json()) as { code: string }).code).toBe("probe_not_declared");
    }
    const warnings = warned.lines.map((l) => JSON.parse(l) as { msg: string; code?: string }).filter((l) => l.msg === "undeclared error");
    expect(warnings).toHaveLength(1);
    expect(warnings[0].code).toBe("probe_not_declared");
    expect(readFileSync(path.join(dir, "warned.jsonl"), "utf8").trim().split("\n")).toHaveLength(1);
  });
});

describe("every RPC's declared errors", () => {
  const statuses = new Set(Object.values(kindToHttpStatus));

  it("are valid: snake_case codes, error statuses a domain error can have, sorted and unique, no 5xx but 503 and internal", () => {
    for (const m of methods) {
      const list = declaredErrors(m);
      for (const e of list) {
        expect(e.code, fullName(m)).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
        expect(statuses.has(e.status), `${fullName(m)} ${e.code} ${e.status}`).toBe(true);
        if (e.status >= 500) expect(e.status === 503 || e.code === "internal", `${fullName(m)} ${e.code} ${e.status}`).toBe(true);
      }
      const keys = list.map((e) => `${String(e.status).padStart(3, "0")} ${e.code}`);
      expect(keys, fullName(m)).toEqual([...new Set(keys)].sort());
      // Its own list holds what the rules do not already imply... and nothing of the enforcement's own.
      for (const e of methodRules(m).errors) expect(e.code, fullName(m)).not.toBe("undeclared_error");
    }
  });

  it("include what every call may answer, and what its auth, permission and tenant imply", () => {
    for (const m of methods) {
      const name = fullName(m);
      for (const [code, status] of [["internal", 500], ["rate_limited", 429], ["database_unavailable", 503], ["store_unavailable", 503], ["workflow_engine_unavailable", 503]] as const)
        expect(has(m, code, status), `${name} ${code}`).toBe(true);
      const rules = methodRules(m);
      const mode = authModeOf(m);
      if (mode === AuthMode.API_TOKEN) expect(has(m, "unauthorized", 401), name).toBe(true);
      if (mode === AuthMode.API_TOKEN && rules.permission) expect(has(m, "forbidden", 403), name).toBe(true);
      if (mode === AuthMode.END_USER) {
        expect(has(m, "unauthorized", 401) && has(m, "invalid_session", 401) && has(m, "validation_error", 400), name).toBe(true);
        // A session waiting for its second factor is refused unless the RPC allows it (which may still refuse it itself).
        if (!rules.mfaPendingAllowed) expect(has(m, "mfa_required", 403), name).toBe(true);
      }
      const scope = tenantPlanOf(m).scope;
      if (["public", "environment", "project", "organization"].includes(scope)) expect(has(m, "not_found", 404), name).toBe(true);
    }
  });

  it("agree with the codes the RPC's proto comment names with a status (e.g. `409 email_taken`)", () => {
    const missing: string[] = [];
    for (const { method, comment } of rpcComments()) {
      const m = methods.find((x) => fullName(x) === method);
      if (!m) continue;
      for (const [, status, code] of comment.matchAll(/\b([45]\d\d) ([a-z][a-z0-9_]*[a-z0-9])/g)) {
        if (!code.includes("_") && !["forbidden", "unauthorized", "internal"].includes(code)) continue;
        if (!has(m, code, Number(status))) missing.push(`${method}: ${status} ${code}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe("npm run errors:declare", () => {
  it("adds entries to an option block's errors lines, sorted, keeping those there", () => {
    const block = ['option (sigil.options.v0.method) = {', '      permission: "users.write"', "      tenant: {scope: TENANT_SCOPE_ENVIRONMENT}", "    "].join("\n");
    const once = withErrors(block, [{ code: "email_taken", status: 409 }]);
    expect(once).toBe(
      [
        "option (sigil.options.v0.method) = {",
        '      permission: "users.write"',
        "      tenant: {scope: TENANT_SCOPE_ENVIRONMENT}",
        '      errors: {code: "email_taken", status: 409}',
        "    ",
      ].join("\n"),
    );
    expect(withErrors(once, [{ code: "bad_email", status: 400 }])).toContain('\n      errors: {code: "bad_email", status: 400}\n      errors: {code: "email_taken", status: 409}\n    ');
  });
});

describe("the test run", () => {
  it("fails when an undeclared error was answered: the global teardown's check exits non-zero listing it", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "declared-errors-run-"));
    const script = [
      `import { appendFileSync } from "node:fs";`,
      `import { enforceDeclaredErrors } from ${JSON.stringify(path.join(root, "test/setup/undeclared-errors.ts"))};`,
      `const run = enforceDeclaredErrors();`,
      `appendFileSync(process.env.SIGIL_UNDECLARED_ERRORS_LOG, JSON.stringify({ method: "sigil.x.v0.S.M", code: "probe", status: 409 }) + "\\n");`,
      `try { run.check(); } catch (e) { process.stderr.write(e.message); }`,
    ].join("\n");
    // The run's own default (enforce), whatever this process was started with.
    const { SIGIL_UNDECLARED_ERRORS: _mode, ...inherited } = process.env;
    const env = { ...inherited, SIGIL_UNDECLARED_ERRORS_LOG: path.join(dir, "u.jsonl") };
    let status = 0;
    let stderr = "";
    try {
      execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: root, env, stdio: "pipe" });
    } catch (e) {
      ({ status, stderr } = e as { status: number; stderr: string });
    }
    expect(status).toBe(1);
    expect(String(stderr)).toContain('"code":"probe"');
  });
});

/** Each rpc's leading comment in the proto sources, by full method name. */
function rpcComments(): { method: string; comment: string }[] {
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => {
      const f = path.join(dir, n);
      return statSync(f).isDirectory() ? files(f) : f.endsWith(".proto") ? [f] : [];
    });
  const out: { method: string; comment: string }[] = [];
  for (const file of files(path.join(root, "proto/sigil"))) {
    const text = readFileSync(file, "utf8");
    const pkg = /^package\s+([\w.]+);/m.exec(text)?.[1];
    let service = "";
    let comment: string[] = [];
    for (const line of text.split("\n")) {
      const t = line.trim();
      const s = /^service\s+(\w+)/.exec(t);
      if (s) service = s[1];
      const rpc = /^rpc\s+(\w+)/.exec(t);
      if (rpc && service) out.push({ method: `${pkg}.${service}.${rpc[1]}`, comment: comment.join(" ") });
      comment = t.startsWith("//") ? [...comment, t.slice(2)] : [];
    }
  }
  return out;
}
