import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { findEnvironmentTenant } from "../../src/db/repositories/tenant-access.js";
import { signInWith, linkCredential } from "../../src/domain/sign-in/pipeline.js";
import type { ProvenCredential } from "../../src/domain/sign-in/credentials.js";
import type { PublicEnvironment } from "../../src/domain/tenancy/access.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { sdkFor } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import { evmProof, newEvmWallet } from "../support/wallet-proofs.js";

/**
 * The first sign-ins of one credential arriving together: each races to create its user, and the unique
 * index on the credential lets one insert win. Every one of them must still sign in, as that one user:
 * never a 409 that asks the client to try again.
 */

let app: TestApp;
let tenant: BootstrapResult;
let env: PublicEnvironment;
beforeAll(async () => {
  app = await startTestApp();
  tenant = await app.bootstrap({ ownerEmail: `sign-in-races-${randomUUID()}@example.com` });
  const t = (await findEnvironmentTenant(app.db, tenant.environmentId, null))!;
  env = { environmentId: tenant.environmentId, environmentName: t.name, projectId: t.projectId, organizationId: t.organizationId };
}, 60_000);
afterAll(() => app?.stop());

const PARALLEL = 10;
const meta = { ipAddress: "127.0.0.1", userAgent: "test", requestId: "" };

async function eventsOf(userIds: string[], name: string) {
  const r = await app.db.one("SELECT count(*)::int AS n FROM events WHERE environment_id = $1 AND event_name = $2 AND user_id = ANY($3::uuid[])", [
    tenant.environmentId,
    name,
    userIds,
  ]);
  return r.n as number;
}

describe("concurrent first sign-ins of one credential", () => {
  it("signs in ten parallel first wallet sign-ins (ten nonces) as one new user, with one wallet and one user.created", async () => {
    const wallet = newEvmWallet();
    const sdk = sdkFor(app.baseUrl);
    const nonces = await Promise.all(Array.from({ length: PARALLEL }, async () => (await sdk.getNonce({ environmentId: tenant.environmentId })).nonce!));
    const proofs = await Promise.all(nonces.map((n) => evmProof(wallet, n)));
    const results = await Promise.allSettled(proofs.map((verifyRequest) => sdk.verify({ environmentId: tenant.environmentId, verifyRequest })));
    const failed = await Promise.all(
      results.filter((r) => r.status === "rejected").map(async (r) => {
        const res = (r as PromiseRejectedResult).reason as Response;
        return `${res.status} ${await res.text?.()}`;
      }),
    );
    expect(failed).toEqual([]);
    const users = new Set(results.map((r) => (r as PromiseFulfilledResult<{ user: { id: string } }>).value.user.id));
    expect(users.size).toBe(1);
    const wallets = await app.db.one("SELECT count(*)::int AS n FROM wallets WHERE environment_id = $1 AND address = $2", [tenant.environmentId, wallet.address]);
    expect(wallets.n).toBe(1);
    expect(await eventsOf([...users], "user.created")).toBe(1);
    expect(await eventsOf([...users], "wallet.linked")).toBe(1);
    expect(await eventsOf([...users], "user.session.created")).toBe(PARALLEL);
    const created = results.filter((r) => (r as PromiseFulfilledResult<{ user: { newUser: boolean } }>).value.user.newUser);
    expect(created).toHaveLength(1);
  });

  // Every sign-in method hands its proven credential to the one pipeline: each kind that can create a user.
  const kinds: [string, () => ProvenCredential][] = [
    ["an e-mail code", () => ({ kind: "email", email: `race-${randomUUID()}@example.com` })],
    ["an OAuth or chat account", () => ({ kind: "oauth", provider: "github", accountId: randomUUID(), emails: [], photos: [], metadata: {} })],
    ["an external JWT's subject", () => ({ kind: "external", externalUserId: randomUUID() })],
  ];
  for (const [what, make] of kinds)
    it(`signs in parallel first sign-ins with ${what} as one new user`, async () => {
      const credential = make();
      const results = await Promise.allSettled(Array.from({ length: PARALLEL }, () => signInWith(app.deps, env, credential, meta)));
      const errors = results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason));
      expect(errors).toEqual([]);
      const users = new Set(results.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof signInWith>>>).value.user.user.id));
      expect(users.size).toBe(1);
      expect(await eventsOf([...users], "user.created")).toBe(1);
    });

  it("links one new wallet from two parallel requests of its user once, and answers both", async () => {
    const me = await signInAs(app, tenant.environmentId);
    const principal = { kind: "end_user" as const, environmentId: tenant.environmentId, userId: me.userId, sessionId: me.sessionId, expiresAt: me.expiresAt, scope: "user:basic" };
    const wallet = newEvmWallet();
    const credential: ProvenCredential = { kind: "wallet", chain: "EVM", address: wallet.address, walletName: "metamask", walletProvider: "browserExtension" };
    const results = await Promise.allSettled(Array.from({ length: 4 }, () => linkCredential(app.deps, env, principal as never, credential, meta)));
    expect(results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    const wallets = await app.db.one("SELECT count(*)::int AS n FROM wallets WHERE environment_id = $1 AND address = $2", [tenant.environmentId, wallet.address]);
    expect(wallets.n).toBe(1);
  });
});
