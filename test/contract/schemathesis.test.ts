import { spawn } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../../src/config.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { signInAs } from "../support/sessions.js";
import { schemathesisConfig, type FuzzTenant } from "./schemathesis-config.js";
import { schemathesisBin } from "./schemathesis-tool.js";

/**
 * Schemathesis (PyPI; installed by scripts/install-schemathesis.sh from the global setup) fuzzes a live server
 * from the document it serves at /openapi.json: every operation, valid and invalid input, both auth schemes
 * with a real tenant's credentials. Passing means no 5xx, and every answer (status, content type, headers,
 * body) is one the document declares. Its output, JUnit and NDJSON reports and the config it ran with are kept
 * in test-results/schemathesis/ (git-ignored, beside the browser test's screenshots).
 *
 * Bounded: SIGIL_FUZZ_MAX_EXAMPLES cases per operation and phase (default 5) and SIGIL_FUZZ_MAX_TIME seconds
 * in all (default 240); the seed is fixed (SIGIL_FUZZ_SEED) so that CI is repeatable, and another seed
 * explores further.
 */
const root = path.resolve(import.meta.dirname, "../..");
const reportDir = path.join(root, "test-results/schemathesis");
const maxExamples = Number(process.env.SIGIL_FUZZ_MAX_EXAMPLES ?? 5);
const maxTime = Number(process.env.SIGIL_FUZZ_MAX_TIME ?? 240);
const seed = Number(process.env.SIGIL_FUZZ_SEED ?? 26);

/** Runs `st` without blocking this process's event loop: the server under test lives in it. */
function runSchemathesis(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(schemathesisBin, args, {
      cwd: reportDir,
      env: { ...process.env, NO_COLOR: "1", COLUMNS: "160" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, output }));
  });
}

describe("schemathesis against the served /openapi.json", () => {
  let app: TestApp;
  let tenant: FuzzTenant;

  beforeAll(async () => {
    app = await startTestApp({
      // Every request comes from 127.0.0.1: with the production limits most answers would be 429s.
      rateLimitPerMinute: 1_000_000,
      sdkRateLimits: { perAddressPer10s: 0, signInPerAddressPerMinute: 0 },
      // SIGIL_FUZZ_LOG_LEVEL=error shows the server's own account of a 500 (its stack).
      logLevel: (process.env.SIGIL_FUZZ_LOG_LEVEL ?? "silent") as Config["logLevel"],
    });
    const main = await app.bootstrap({ ownerEmail: "fuzz-owner@example.com" });
    // A second organization of the same owner: the fuzzed deletions of an organization or project land there.
    const spare = await app.bootstrap({ ownerEmail: "fuzz-owner@example.com", organizationName: "Spare" });
    const user = await signInAs(app, main.environmentId);
    // Users and sessions that fuzzed deletions and revocations may end without ending the run's own.
    const doomed = await signInAs(app, main.environmentId);
    const revoked = await signInAs(app, main.environmentId);
    const refreshed = await signInAs(app, main.environmentId);
    // An account token of the owner for the fuzzed DELETE /user/tokens/{tokenId} to take, not the run's own
    // (GET /user/tokens lists it, and the fuzzer reuses ids it saw in answers).
    const spareAccountToken = await call(app.baseUrl, "POST", "/user/tokens", { token: main.memberToken, body: { note: "spare" } });
    expect(spareAccountToken.status, spareAccountToken.text).toBe(201);
    tenant = {
      organizationId: main.organizationId,
      projectId: main.projectId,
      environmentId: main.environmentId,
      managementToken: main.memberToken,
      jwt: user.jwt,
      userId: user.userId,
      sessionId: user.sessionId,
      overrides: [
        { method: "delete", path: /^(\/api\/v0)?\/organizations\/\{[^}]+\}$/, parameters: { organizationid: spare.organizationId } },
        { method: "delete", path: /^(\/api\/v0)?\/projects\/\{[^}]+\}$/, parameters: { projectid: spare.projectId } },
        { method: "delete", path: /^(\/api\/v0)?\/user\/tokens\/\{[^}]+\}$/, parameters: { tokenid: spareAccountToken.body.token.id } },
        { method: "delete", path: /^(\/api\/v0)?\/members\/\{[^}]+\}$/, parameters: { memberid: spare.memberId } },
        { method: "put", path: /^(\/api\/v0)?\/members\/\{[^}]+\}(\/delegateOwnership)?$/, parameters: { memberid: spare.memberId } },
        { method: "delete", path: /\/users\/\{[^}]+\}$/, parameters: { userid: doomed.userId } },
        { method: "post", path: /\/users\/\{[^}]+\}\/sessions\/revoke$/, parameters: { userid: doomed.userId } },
        { method: "put", path: /\/sessions\/\{[^}]+\}\/revoke$/, parameters: { sessionid: doomed.sessionId } },
        { method: "delete", path: /\/sdk\/\{[^}]+\}\/users$/, jwt: doomed.jwt },
        { method: "post", path: /\/sdk\/\{[^}]+\}\/revoke$/, jwt: revoked.jwt },
        { method: "post", path: /\/sdk\/\{[^}]+\}\/refresh$/, jwt: refreshed.jwt },
      ],
    };
    // The credentials must work before the run: with a refused one every operation is a 401 and the run, shallow, passes.
    const probes = [
      await call(app.baseUrl, "GET", `/organizations/${main.organizationId}`, { token: tenant.managementToken }),
      await call(app.baseUrl, "GET", `/environments/${main.environmentId}/tokens`, { token: tenant.managementToken }),
      await call(app.baseUrl, "GET", `/sdk/${main.environmentId}/users`, { token: tenant.jwt }),
    ];
    expect(probes.map((p) => [p.status, p.text.slice(0, 200)])).toEqual(probes.map((p) => [200, p.text.slice(0, 200)]));
    await rm(reportDir, { recursive: true, force: true });
    await mkdir(reportDir, { recursive: true });
  });

  afterAll(async () => {
    await app?.stop();
  });

  it(
    "answers every generated request without a 5xx and as its document declares",
    async () => {
      const docUrl = `${app.baseUrl}/openapi.json`;
      const served = await fetch(docUrl);
      expect(served.status, "the server serves its document").toBe(200);
      const doc = await served.json();
      const configFile = path.join(reportDir, "schemathesis.toml");
      await writeFile(configFile, schemathesisConfig(doc, tenant, { maxExamples, workers: 1, seed }, reportDir));
      const started = Date.now();
      const { code, output } = await runSchemathesis([
        "--config-file",
        configFile,
        "run",
        docUrl,
        "--url",
        app.baseUrl,
        "--max-time",
        String(maxTime),
        "--output-sanitize",
        "false",
        "--phases",
        "examples,coverage,fuzzing",
      ]);
      await writeFile(path.join(reportDir, "output.txt"), output);
      const seconds = Math.round((Date.now() - started) / 1000);
      process.stderr.write(`[schemathesis] ${seconds} s, exit ${code}; reports in ${path.relative(root, reportDir)}\n`);
      // On failure the message carries schemathesis's own summary: each failing operation, check and a curl to reproduce it.
      expect(code, `schemathesis found failures (exit ${code}):\n${output.slice(-20_000)}`).toBe(0);
    },
    (maxTime + 240) * 1000,
  );
});
