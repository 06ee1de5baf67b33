import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cachedWorkflowBundle } from "../../src/temporal/workflow-bundle.js";

describe("the workflow bundle cached on disk", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sigil-bundle-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is built once, written under a name of the sources' hash (older bundles removed), then read back", async () => {
    writeFileSync(path.join(dir, "workflow-bundle-0000.js"), "stale");
    const built: string[] = [];
    const first = await cachedWorkflowBundle(dir, (m) => built.push(m));
    expect(built.some((m) => m.startsWith("workflow bundle built"))).toBe(true);
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^workflow-bundle-[0-9a-f]{32}\.js$/);
    expect(readFileSync(path.join(dir, files[0]!), "utf8")).toBe(first.code);

    const again: string[] = [];
    const second = await cachedWorkflowBundle(dir, (m) => again.push(m));
    expect(again).toEqual([]);
    expect(second.code).toBe(first.code);
  }, 120_000);
});
