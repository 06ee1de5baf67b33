import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { Configuration, TokensApi, UsersApi } from "@dynamic-labs/sdk-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { statusOf } from "../support/sdk-client.js";

/**
 * examples/connect-client/main.ts is run as its README says (tsx, the service's address, a management token
 * and an environment id in the environment) against a real server, over gRPC and over the Connect protocol:
 * what it prints is what it did, and the published REST client sees the user and the token it made.
 */
const root = path.resolve(import.meta.dirname, "../..");
const example = path.join(root, "examples/connect-client/main.ts");
let app: TestApp;
let t: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  t = await app.bootstrap();
});
afterAll(() => app?.stop());

async function runExample(protocol: "grpc" | "connect"): Promise<string> {
  const env = { ...process.env, SIGIL_URL: app.baseUrl, SIGIL_TOKEN: t.token, SIGIL_ENVIRONMENT_ID: t.environmentId, SIGIL_PROTOCOL: protocol };
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", example], { cwd: root, env, timeout: 60_000 });
  return stdout;
}

const rest = (token: string) => new Configuration({ basePath: `${app.baseUrl}/api/v0`, accessToken: token, headers: { Authorization: `Bearer ${token}` } });

describe("the Connect client example (examples/connect-client)", () => {
  for (const protocol of ["grpc", "connect"] as const)
    it(`creates a user, lists users and creates a read-only token over ${protocol}`, async () => {
      const out = await runExample(protocol);
      const created = /^created user ([0-9a-f-]{36}) (\S+)$/m.exec(out);
      expect(created, out).not.toBeNull();
      expect(out).toMatch(/^users in the environment: [1-9]\d*; newest: /m);
      expect(out).toMatch(/^unknown user: NotFound not_found: user not found/m);
      const madeToken = /^created token ([0-9a-f-]{36}) with users\.read: sgl_/m.exec(out);
      expect(madeToken, out).not.toBeNull();

      // What it made, seen through the published client over REST.
      const { user } = await new UsersApi(rest(t.token)).getUser({ environmentId: t.environmentId, userId: created![1]! });
      expect(user?.email).toBe(created![2]);
      const { tokens } = await new TokensApi(rest(t.token)).getTokens({ environmentId: t.environmentId });
      const token = tokens?.find((x) => x.id === madeToken![1]);
      expect(token?.note).toBe("read-only reporting");
    });

  it("fails clearly without a token", async () => {
    const env = { ...process.env, SIGIL_URL: app.baseUrl, SIGIL_TOKEN: "", SIGIL_ENVIRONMENT_ID: t.environmentId };
    await expect(promisify(execFile)(process.execPath, ["--import", "tsx", example], { cwd: root, env, timeout: 60_000 })).rejects.toMatchObject({
      stderr: expect.stringContaining("set SIGIL_TOKEN and SIGIL_ENVIRONMENT_ID"),
    });
    expect(await statusOf(new UsersApi(rest(t.token)).getEnvironmentUsers({ environmentId: t.environmentId }))).toBe(200);
  });
});
