import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { signInAs } from "../support/sessions.js";
import { evmProof, newEvmWallet, newSolanaWallet, solanaProof } from "../support/wallet-proofs.js";
import { refused, sdkFor } from "../support/sdk-client.js";

/**
 * What a signed-in user does with wallets through the published client's SDKApi: link one (verifyLink),
 * remove a wallet or credential (verifyUnlink), take a wallet from another user (verifyTransfer) or merge
 * that user in (mergeUsers, verifyMergeUsers), each on both proofs (the session and the signature).
 */

let app: TestApp;
let tenant: BootstrapResult;
let env: string;
beforeAll(async () => {
  app = await startTestApp();
  tenant = await app.bootstrap({ ownerEmail: `wallet-links-${randomUUID()}@example.com` });
  env = tenant.environmentId;
}, 60_000);
afterAll(() => app?.stop());

const sdk = (jwt?: string) => sdkFor(app.baseUrl, jwt);
const nonce = async () => (await sdk().getNonce({ environmentId: env })).nonce!;
const manage = async (method: string, path: string, body?: unknown) => {
  const res = await call(app.baseUrl, method, path, { token: tenant.token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};
/** A user signed in with a wallet only (their one way to sign in). */
async function walletUser() {
  const wallet = newEvmWallet();
  const r = await sdk().verify({ environmentId: env, verifyRequest: await evmProof(wallet, await nonce()) });
  return { wallet, jwt: r.jwt, userId: r.user.id };
}
const eventsOf = (userId: string) =>
  app.db.map("SELECT event_name FROM events WHERE environment_id = $1 AND user_id = $2 ORDER BY created_at", [env, userId], (r) => r.event_name as string);

describe("verifyLink", () => {
  it("adds a proven wallet to the signed-in user and answers new tokens", async () => {
    const user = await signInAs(app, env);
    const wallet = newEvmWallet();
    const r = await sdk(user.jwt).verifyLink({ environmentId: env, verifyRequest: await evmProof(wallet, await nonce()) });
    expect(r.user.id).toBe(user.userId);
    expect(r.jwt).not.toBe(user.jwt);
    expect(r.user.verifiedCredentials?.map((c) => c.format).sort()).toEqual(["blockchain", "email"]);
    const sol = newSolanaWallet();
    const r2 = await sdk(r.jwt).verifyLink({ environmentId: env, verifyRequest: solanaProof(sol, await nonce()) });
    expect(r2.user.verifiedCredentials?.filter((c) => c.format === "blockchain").map((c) => c.address)).toEqual([wallet.address, sol.address]);
    expect(await eventsOf(user.userId)).toContain("wallet.linked");
  });

  it("is 401 without a session, or with another environment's session", async () => {
    const proof = await evmProof(newEvmWallet(), await nonce());
    expect((await refused(sdk().verifyLink({ environmentId: env, verifyRequest: proof }))).status).toBe(401);
    const other = await app.bootstrap({ ownerEmail: `wallet-links-${randomUUID()}@example.com` });
    const stranger = await signInAs(app, other.environmentId);
    expect((await refused(sdk(stranger.jwt).verifyLink({ environmentId: env, verifyRequest: proof }))).status).toBe(401);
    // The proof was not used up by the refused calls.
    const user = await signInAs(app, env);
    await sdk(user.jwt).verifyLink({ environmentId: env, verifyRequest: proof });
  });

  it("refuses another user's wallet with a code telling the client to transfer or merge", async () => {
    const owner = await walletUser();
    const user = await signInAs(app, env);
    const res = await refused(sdk(user.jwt).verifyLink({ environmentId: env, verifyRequest: await evmProof(owner.wallet, await nonce()) }));
    expect(res).toMatchObject({ status: 422, body: { code: "credential_owned_by_another_user", payload: { transfer: true, merge: true } } });
  });
});

describe("verifyUnlink", () => {
  it("removes a wallet or a credential, never the last way to sign in", async () => {
    const user = await signInAs(app, env);
    const wallet = newEvmWallet();
    const linked = await sdk(user.jwt).verifyLink({ environmentId: env, verifyRequest: await evmProof(wallet, await nonce()) });
    const walletVc = linked.user.verifiedCredentials!.find((c) => c.format === "blockchain")!;
    const emailVc = linked.user.verifiedCredentials!.find((c) => c.format === "email")!;

    // The e-mail goes (by its credential id, the client's misspelled field), the wallet stays.
    const r = await sdk(linked.jwt).verifyUnlink({ environmentId: env, verifyUnlinkRequest: { verifiedCrentialId: emailVc.id } });
    expect(r.user.verifiedCredentials!.map((c) => c.id)).toEqual([walletVc.id]);
    expect(r.user.email ?? null).toBeNull();
    expect(await eventsOf(user.userId)).toContain("verified_credential.deleted");

    const last = await refused(sdk(r.jwt).verifyUnlink({ environmentId: env, verifyUnlinkRequest: { walletId: walletVc.id } }));
    expect(last).toMatchObject({ status: 422, body: { code: "last_credential" } });
    const still = await app.db.one("SELECT count(*)::int AS n FROM wallets WHERE environment_id = $1 AND user_id = $2 AND deleted_at IS NULL", [env, user.userId]);
    expect(still.n).toBe(1);
    // The freed e-mail signs a new user up now.
    const newcomer = await signInAs(app, env, user.email);
    expect(newcomer.userId).not.toBe(user.userId);
  });

  it("removes a wallet by its wallet id, makes primaryWalletId the selected one, and audits it as the user", async () => {
    const user = await signInAs(app, env);
    const first = newEvmWallet();
    const second = newSolanaWallet();
    await sdk(user.jwt).verifyLink({ environmentId: env, verifyRequest: await evmProof(first, await nonce()) });
    const linked = await sdk(user.jwt).verifyLink({ environmentId: env, verifyRequest: solanaProof(second, await nonce()) });
    const ids = await app.db.map("SELECT id, address FROM wallets WHERE environment_id = $1 AND user_id = $2", [env, user.userId], (r) => r);
    const walletId = ids.find((w) => w.address === first.address)!.id;
    const primaryWalletId = ids.find((w) => w.address === second.address)!.id;
    const r = await sdk(linked.jwt).verifyUnlink({ environmentId: env, verifyUnlinkRequest: { walletId, primaryWalletId } });
    expect(r.user.verifiedCredentials!.map((c) => c.format)).toEqual(["email", "blockchain"]);
    expect(r.user.verifiedCredentials![1]).toMatchObject({ address: second.address });
    expect(r.user.verifiedCredentials![1].lastSelectedAt).toBeInstanceOf(Date);
    expect(await eventsOf(user.userId)).toContain("wallet.unlinked");
    const audit = await app.db.one("SELECT actor_user_id, actor_token_id FROM audit_log WHERE action = 'wallet.unlinked' AND resource_id = $1", [walletId]);
    expect(audit).toEqual({ actor_user_id: user.userId, actor_token_id: null });
    // A primary wallet that is not the user's: 404, and nothing was removed.
    const again = await refused(sdk(r.jwt).verifyUnlink({ environmentId: env, verifyUnlinkRequest: { walletId: primaryWalletId, primaryWalletId: walletId } }));
    expect(again.status).toBe(404);
    const live = await app.db.one("SELECT deleted_at FROM wallets WHERE id = $1", [primaryWalletId]);
    expect(live.deleted_at).toBeNull();
  });

  it("is 404 for another user's credential and 400 without an id", async () => {
    const owner = await walletUser();
    const ownerWallet = await app.db.one("SELECT id FROM wallets WHERE user_id = $1", [owner.userId]);
    const user = await signInAs(app, env);
    await sdk(user.jwt).verifyLink({ environmentId: env, verifyRequest: await evmProof(newEvmWallet(), await nonce()) });
    expect((await refused(sdk(user.jwt).verifyUnlink({ environmentId: env, verifyUnlinkRequest: { walletId: ownerWallet.id } }))).status).toBe(404);
    expect((await refused(sdk(user.jwt).verifyUnlink({ environmentId: env, verifyUnlinkRequest: {} }))).status).toBe(400);
    const kept = await app.db.one("SELECT deleted_at FROM wallets WHERE id = $1", [ownerWallet.id]);
    expect(kept.deleted_at).toBeNull();
  });
});

describe("verifyTransfer", () => {
  it("moves another user's wallet to the caller on a fresh proof", async () => {
    // B holds an e-mail and the wallet, so the wallet is not B's only way in.
    const b = await signInAs(app, env);
    const wallet = newEvmWallet();
    await sdk(b.jwt).verifyLink({ environmentId: env, verifyRequest: await evmProof(wallet, await nonce()) });
    const a = await signInAs(app, env);

    // Without a valid proof nothing moves.
    const proof = await evmProof(wallet, await nonce());
    const forged = { ...proof, signedMessage: await newEvmWallet().signMessage({ message: proof.messageToSign }) };
    expect(await refused(sdk(a.jwt).verifyTransfer({ environmentId: env, verifyRequest: forged }))).toMatchObject({ status: 422, body: { code: "invalid_signature" } });
    expect((await refused(sdk().verifyTransfer({ environmentId: env, verifyRequest: proof }))).status).toBe(401);

    const r = await sdk(a.jwt).verifyTransfer({ environmentId: env, verifyRequest: proof });
    const moved = r.user.verifiedCredentials!.find((c) => c.format === "blockchain")!;
    expect(moved).toMatchObject({ address: wallet.address, previousUsers: [b.userId] });
    const row = await app.db.one("SELECT user_id FROM wallets WHERE environment_id = $1 AND address = $2 AND deleted_at IS NULL", [env, wallet.address]);
    expect(row.user_id).toBe(a.userId);
    expect(await eventsOf(b.userId)).toContain("wallet.unlinked");
    expect(await eventsOf(a.userId)).toContain("wallet.linked");
    // The wallet now signs A in.
    const signIn = await sdk().verify({ environmentId: env, verifyRequest: await evmProof(wallet, await nonce()) });
    expect(signIn.user.id).toBe(a.userId);
  });

  it("refuses to take the other user's last way to sign in, and offers the merge instead", async () => {
    const b = await walletUser();
    const a = await signInAs(app, env);
    const res = await refused(sdk(a.jwt).verifyTransfer({ environmentId: env, verifyRequest: await evmProof(b.wallet, await nonce()) }));
    expect(res).toMatchObject({ status: 422, body: { code: "last_credential_of_other_user" } });
    const row = await app.db.one("SELECT user_id FROM wallets WHERE environment_id = $1 AND address = $2 AND deleted_at IS NULL", [env, b.wallet.address]);
    expect(row.user_id).toBe(b.userId);
    const merged = await sdk(a.jwt).mergeUsers({ environmentId: env });
    expect(merged.user.verifiedCredentials!.find((c) => c.format === "blockchain")).toMatchObject({ address: b.wallet.address, previousUsers: [b.userId] });
  });
});

describe("mergeUsers and verifyMergeUsers", () => {
  it("merges the other user of a failed link in, after the conflicts are resolved", async () => {
    const b = await walletUser();
    const a = await signInAs(app, env);
    await manage("PUT", `/environments/${env}/users/${a.userId}`, { firstName: "Alice", lastName: "Anders" });
    await manage("PUT", `/environments/${env}/users/${b.userId}`, { firstName: "Bob", team: "blue" });

    expect((await refused(sdk(a.jwt).mergeUsers({ environmentId: env }))).body).toMatchObject({ code: "no_pending_merge" });
    const link = await refused(sdk(a.jwt).verifyLink({ environmentId: env, verifyRequest: await evmProof(b.wallet, await nonce()) }));
    expect(link.body.code).toBe("credential_owned_by_another_user");

    const conflicts = await refused(sdk(a.jwt).mergeUsers({ environmentId: env }));
    expect(conflicts).toMatchObject({ status: 422, body: { code: "merge_conflicts", payload: { conflicts: [{ fieldKey: "firstName", type: "standard" }] } } });
    const stranger = randomUUID();
    const bad = await refused(
      sdk(a.jwt).verifyMergeUsers({ environmentId: env, mergeUserConflictResolutions: { mergeUserResolutions: [{ userId: stranger, fieldKey: "firstName", type: "standard" as never }] } }),
    );
    expect(bad).toMatchObject({ status: 400, body: { code: "invalid_resolution" } });

    const r = await sdk(a.jwt).verifyMergeUsers({
      environmentId: env,
      mergeUserConflictResolutions: { mergeUserResolutions: [{ userId: b.userId, fieldKey: "firstName", type: "standard" as never }] },
    });
    expect(r.user).toMatchObject({ id: a.userId, firstName: "Bob", lastName: "Anders", team: "blue" });
    const walletVc = r.user.verifiedCredentials!.find((c) => c.format === "blockchain")!;
    expect(walletVc).toMatchObject({ address: b.wallet.address, previousUsers: [b.userId] });

    // B is gone: their session is revoked, the management API no longer finds them, their wallet signs A in.
    expect((await refused(sdk(b.jwt).sessionCheck({ environmentId: env }))).status).toBe(401);
    expect((await call(app.baseUrl, "GET", `/environments/${env}/users/${b.userId}`, { token: tenant.token })).status).toBe(404);
    expect((await sdk().verify({ environmentId: env, verifyRequest: await evmProof(b.wallet, await nonce()) })).user.id).toBe(a.userId);
    expect(await eventsOf(a.userId)).toContain("user.updated");
    expect(await eventsOf(b.userId)).toContain("user.deleted");
    // The pending merge was used up.
    expect((await refused(sdk(a.jwt).mergeUsers({ environmentId: env }))).body).toMatchObject({ code: "no_pending_merge" });
  });

  it("merges at once when nothing conflicts", async () => {
    const b = await walletUser();
    const a = await signInAs(app, env);
    await sdk(a.jwt).verifyLink({ environmentId: env, verifyRequest: await evmProof(b.wallet, await nonce()) }).catch(() => undefined);
    const r = await sdk(a.jwt).mergeUsers({ environmentId: env });
    expect(r.user.verifiedCredentials!.map((c) => c.format).sort()).toEqual(["blockchain", "email"]);
  });

  it("is per session: another session of the same user has nothing to merge", async () => {
    const b = await walletUser();
    const a = await signInAs(app, env);
    await sdk(a.jwt).verifyLink({ environmentId: env, verifyRequest: await evmProof(b.wallet, await nonce()) }).catch(() => undefined);
    const again = await signInAs(app, env, a.email);
    expect((await refused(sdk(again.jwt).mergeUsers({ environmentId: env }))).body).toMatchObject({ code: "no_pending_merge" });
  });
});
