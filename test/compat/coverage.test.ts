import { describe, expect, it } from "vitest";
import { clientVersion, readClientOperations } from "./catalogue.js";
import { allowedUndeclared, decisionMarker, exceptions } from "./exceptions.js";
import { readClientModels } from "./models.js";
import { operationsInScope } from "./runner.js";
import { allScenarios } from "./scenarios/index.js";
import { readFileSync } from "node:fs";

/**
 * Every in-scope operation of the installed client has exactly one scenario (the scenario files run them and
 * check they were sent); nothing is skipped, and every exception names a decision that exists.
 */
describe(`published client @dynamic-labs/sdk-api ${clientVersion}: coverage`, () => {
  const inScope = operationsInScope();

  it("reads the client's operations from the package", () => {
    expect(readClientOperations().length).toBeGreaterThan(400);
    expect(inScope.size).toBeGreaterThan(150);
  });

  it("has a scenario for every vendor-neutral management operation, and only for those", () => {
    const keys = allScenarios.flatMap((s) => Object.keys(s));
    const missing = [...inScope.keys()].filter((k) => !keys.includes(k));
    expect(missing, "operations without a scenario").toEqual([]);
    expect(keys.filter((k) => !inScope.has(k)), "scenarios of no in-scope operation").toEqual([]);
    expect(keys.filter((k, i) => keys.indexOf(k) !== i), "operations with two scenarios").toEqual([]);
  });

  it("every exception names a decision written down in docs/decisions.md", () => {
    const decisions = readFileSync(new URL("../../docs/decisions.md", import.meta.url), "utf8");
    for (const [key, e] of Object.entries(exceptions)) {
      expect(inScope.has(key), `${key}: not an in-scope operation`).toBe(true);
      expect(decisions.includes(e.decision), `${key}: no decision "${e.decision}" in docs/decisions.md`).toBe(true);
    }
  });

  it("every allowed extension is a property its model lacks, named in docs/decisions.md", () => {
    const decisions = readFileSync(new URL("../../docs/decisions.md", import.meta.url), "utf8");
    const models = readClientModels();
    for (const a of allowedUndeclared) {
      const model = models.get(a.model);
      expect(model?.kind, `${a.model}: not an object model of the client`).toBe("object");
      expect(model?.kind === "object" && a.property in model.properties, `${a.model} declares ${a.property}: not an extension`).toBe(false);
      expect(a.reason.length, `${decisionMarker(a)}: give the reason`).toBeGreaterThan(0);
      expect(decisions.includes(decisionMarker(a)), `no ${decisionMarker(a)} in docs/decisions.md`).toBe(true);
    }
  });
});
