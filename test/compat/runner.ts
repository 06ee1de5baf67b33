import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../../src/config.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { readClientOperations, readContractOperations, scopeOf, type ClientOperation } from "./catalogue.js";
import { conform, type Undeclared, type Violation } from "./conform.js";
import { allowedUndeclared, exceptions } from "./exceptions.js";
import { writeCompatReport, type CompatFinding } from "./report.js";
import { createContext, describeFailure, fillsTemplate, type CompatContext, type Exchange, type Scenarios } from "./harness.js";
import { readClientModels } from "./models.js";
import { neutralPath } from "../support/neutral-words.js";

// The contract as vendored into the repository (docs/spec; test/architecture/vendored-spec.test.ts keeps it in step).
const contractPath = new URL("../../docs/spec/operations.md", import.meta.url);

/** The client operations this suite must drive (see scopeOf), keyed `ApiClass.operation`. */
export function operationsInScope(): Map<string, ClientOperation> {
  const contract = new Set(readContractOperations(readFileSync(contractPath, "utf8")).map((r) => `${r.method} ${r.path}`));
  return new Map(
    readClientOperations()
      .filter((op) => scopeOf(op, contract).included)
      .map((op) => [`${op.api}.${op.operation}`, op]),
  );
}

/**
 * Runs one file's scenarios in order against a fresh server and tenant: each must send its operation's
 * request through the client, get a 2xx, and an answer whose raw JSON matches the client's model. `config`
 * overrides the test app's (e.g. a data directory whose dev mailbox the scenarios read).
 */
export function runCompat(title: string, scenarios: Scenarios, config: Partial<Config> = {}): void {
  const inScope = operationsInScope();
  const models = readClientModels();
  let app: TestApp;
  let ctx: CompatContext;
  const wire: Exchange[] = [];
  const findings: CompatFinding[] = [];

  describe(`published client conformance: ${title}`, () => {
    beforeAll(async () => {
      app = await startTestApp(config);
      const tenant = await app.bootstrap({ ownerEmail: `compat-${Date.now()}-${Math.random().toString(16).slice(2)}@example.com` });
      ctx = createContext(app, tenant, wire);
    });
    afterAll(async () => {
      writeCompatReport(title, findings);
      await app?.stop();
    });

    for (const [key, scenario] of Object.entries(scenarios)) {
      it(key, async () => {
        const op = inScope.get(key);
        expect(op, `${key} is not an in-scope operation of the client`).toBeDefined();
        wire.length = 0;
        try {
          await scenario(ctx);
        } catch (err) {
          const seen = wire.at(-1);
          const body = seen ? ` (last answer on the wire: ${seen.method} ${seen.path} ${seen.status} ${seen.text.slice(0, 400)})` : "";
          expect.fail(`${key}: ${await describeFailure(err)}${body}`);
        }
        // Vendor-named SDK paths are sent at their neutral twins (test/support/neutral-words.ts).
        const sent = wire.filter((x) => x.method === op!.method && fillsTemplate(neutralPath(op!.path), x.path));
        expect(sent.length, `${key}: the scenario never sent ${op!.method} ${op!.path} through the client`).toBeGreaterThan(0);
        const last = sent[sent.length - 1];
        expect(last.status >= 200 && last.status < 300, `${key}: status ${last.status}`).toBe(true);
        if (op!.response === "json") {
          expect(last.status, `${key}: the client parses JSON, a 204 has none`).not.toBe(204);
          expect(last.contentType ?? "", `${key}: content type`).toMatch(/^application\/json/);
          const body = JSON.parse(last.text);
          const undeclared: Undeclared[] = [];
          const violations = conform(models, body, op!.responseType!, "$", undeclared);
          findings.push({ operation: key, responseType: op!.responseType!, violations, undeclared });
          expectOnlyExcepted(key, violations);
          expectOnlyDecidedExtensions(key, undeclared);
        }
      });
    }
  });
}

function expectOnlyExcepted(key: string, violations: Violation[]): void {
  const exception = exceptions[key];
  const allowed = exception?.allow ?? [];
  const at = (a: { path: string | RegExp }, path: string) => (typeof a.path === "string" ? a.path === path : a.path.test(path));
  const unexpected = violations.filter((v) => !allowed.some((a) => at(a, v.path) && a.problem.test(v.problem)));
  expect(unexpected.map((v) => `${v.path}: ${v.problem}`), `${key}: differs from the client's model`).toEqual([]);
  for (const a of allowed) {
    const used = violations.some((v) => at(a, v.path) && a.problem.test(v.problem));
    expect(used, `${key}: the exception for ${a.path} (decision "${exception!.decision}") matches nothing: remove it`).toBe(true);
  }
}

/** A property the model does not declare passes only where docs/decisions.md names it (exceptions.ts). */
function expectOnlyDecidedExtensions(key: string, undeclared: Undeclared[]): void {
  const unexpected = undeclared.filter((u) => !allowedUndeclared.some((a) => a.model === u.model && a.property === u.property));
  expect(
    unexpected.map((u) => `${u.path}: ${u.model} does not declare ${u.property}`),
    `${key}: properties the client's model does not declare`,
  ).toEqual([]);
}
