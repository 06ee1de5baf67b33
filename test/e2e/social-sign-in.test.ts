import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkSocialSignInService } from "../../src/gen/sigil/social_sign_in/v0/social_sign_in_service_pb.js";
import { DEFAULT_EXTERNAL_SIGN_IN_SETTINGS } from "../../src/config.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { neutralWords } from "../support/neutral-words.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { signInAs } from "../support/sessions.js";
import { newEvmWallet } from "../support/wallet-proofs.js";
import { SocialHubPeer, socialProof } from "./support/social-hub-peer.js";

/**
 * Signing in with a decentralized-social account through the published client (its operations at the
 * contract's neutral paths): the custody address signs an EIP-4361 message naming the account, and the
 * network's hub (a loopback peer) says who holds it. Attacks: a signer that is not the custody address,
 * a replayed or foreign nonce, a tampered message, two requests with one nonce.
 */

let app: TestApp;
let hub: SocialHubPeer;
let tenant: BootstrapResult;
let fidSeq = 1000 + Math.floor(Math.random() * 100000);

beforeAll(async () => {
  hub = await SocialHubPeer.start();
  app = await startTestApp({ externalSignIn: { ...DEFAULT_EXTERNAL_SIGN_IN_SETTINGS, socialHubUrl: hub.url } });
  tenant = await app.bootstrap({ ownerEmail: `social-${randomUUID()}@example.com` });
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await hub?.stop();
});

const sdk = (jwt?: string) => sdkFor(app.baseUrl, jwt).withMiddleware(neutralWords);
const nonce = async (environmentId = tenant.environmentId) => (await sdkFor(app.baseUrl).getNonce({ environmentId })).nonce!;
/** A new account on the network, held by a fresh custody wallet. */
function newAccount() {
  const custody = newEvmWallet();
  const fid = String(fidSeq++);
  hub.accounts.set(fid, { custodyAddress: custody.address.toLowerCase(), username: `user${fid}`, displayName: `User ${fid}`, pfpUrl: `https://img.example.com/${fid}.png` });
  return { custody, fid };
}
const signIn = async (req: Awaited<ReturnType<typeof socialProof>>, environmentId = tenant.environmentId) =>
  sdk().farcasterSignIn({ environmentId, farcasterSignInRequest: req });

describe("decentralizedSocialSignIn", () => {
  it("creates a user with the account, and signs the same user in next time", async () => {
    const { custody, fid } = newAccount();
    const first = await signIn(await socialProof(custody, fid, await nonce()));
    expect(first.user.newUser).toBe(true);
    await sdk(first.jwt).sessionCheck({ environmentId: tenant.environmentId });
    const row = await app.db.one("SELECT oauth_provider, oauth_account_id, oauth_username FROM verified_credentials WHERE user_id = $1 AND format = 'oauth'", [first.user.id]);
    expect(row).toEqual({ oauth_provider: "decentralizedSocial", oauth_account_id: fid, oauth_username: `user${fid}` });

    const second = await signIn(await socialProof(custody, fid, await nonce()));
    expect(second.user.newUser).toBe(false);
    expect(second.user.id).toBe(first.user.id);
    const events = await app.db.any("SELECT event_name FROM events WHERE environment_id = $1 AND user_id = $2", [tenant.environmentId, first.user.id]);
    expect(events.map((e) => e.event_name)).toEqual(expect.arrayContaining(["user.created", "verified_credential.created", "user.session.created"]));
  });

  it("refuses a signer that is not the account's custody address, and an unknown account", async () => {
    const { fid } = newAccount();
    const intruder = newEvmWallet();
    const r = await refused(signIn(await socialProof(intruder, fid, await nonce())));
    expect([r.status, r.body.code]).toEqual([422, "not_custody_address"]);
    const unknown = await refused(signIn(await socialProof(intruder, "999999999", await nonce())));
    expect([unknown.status, unknown.body.code]).toEqual([422, "social_account_not_found"]);
  });

  it("refuses a replayed nonce, another environment's nonce, and a tampered message or request", async () => {
    const { custody, fid } = newAccount();
    const proof = await socialProof(custody, fid, await nonce());
    await signIn(proof);
    expect(await refused(signIn(proof))).toMatchObject({ status: 422, body: { code: "invalid_nonce" } });

    const other = await app.bootstrap({ ownerEmail: `social-${randomUUID()}@example.com` });
    const foreign = await socialProof(custody, fid, await nonce(other.environmentId));
    expect(await refused(signIn(foreign))).toMatchObject({ status: 422, body: { code: "invalid_nonce" } });

    const fresh = await socialProof(custody, fid, await nonce());
    const tampered = { ...fresh, message: fresh.message.replace(`fid/${fid}`, `fid/${Number(fid) + 1}`) };
    expect((await refused(signIn(tampered))).status).toBe(422);
    expect(await refused(signIn({ ...fresh, nonce: "abcdef1234567890" }))).toMatchObject({ status: 422, body: { code: "message_mismatch" } });
    expect(await refused(signIn(await socialProof(custody, fid, await nonce(), { resources: [] })))).toMatchObject({ status: 422, body: { code: "account_not_named" } });
    // The untampered request still works: nothing above used its nonce.
    expect((await signIn(fresh)).user.newUser).toBe(false);
  });

  it("is 503 social_hub_unavailable while the hub fails, and the nonce stays usable", async () => {
    const { custody, fid } = newAccount();
    const proof = await socialProof(custody, fid, await nonce());
    hub.failing = true;
    try {
      const r = await refused(signIn(proof));
      expect([r.status, r.body.code]).toEqual([503, "social_hub_unavailable"]);
    } finally {
      hub.failing = false;
    }
    expect((await signIn(proof)).user.newUser).toBe(true);
  });

  it("of two requests with one nonce, exactly one wins", async () => {
    const { custody, fid } = newAccount();
    const proof = await socialProof(custody, fid, await nonce());
    const results = await Promise.allSettled([signIn(proof), signIn(proof)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });
});

describe("decentralizedSocialVerify", () => {
  it("adds the account to the signed-in user; another user's account is 422", async () => {
    const user = await signInAs(app, tenant.environmentId);
    const { custody, fid } = newAccount();
    const linked = await sdk(user.jwt).farcasterVerify({ environmentId: tenant.environmentId, farcasterSignInRequest: await socialProof(custody, fid, await nonce()) });
    expect(linked.user.id).toBe(user.userId);
    const other = await signInAs(app, tenant.environmentId);
    const taken = await refused(sdk(other.jwt).farcasterVerify({ environmentId: tenant.environmentId, farcasterSignInRequest: await socialProof(custody, fid, await nonce()) }));
    expect([taken.status, taken.body.code]).toEqual([422, "credential_owned_by_another_user"]);
  });
});

describe("without a configured hub", () => {
  it("is 403 sign_in_method_disabled", async () => {
    const bare = await startTestApp();
    try {
      const t = await bare.bootstrap({ ownerEmail: `social-${randomUUID()}@example.com` });
      const n = (await sdkFor(bare.baseUrl).getNonce({ environmentId: t.environmentId })).nonce!;
      const r = await refused(sdkFor(bare.baseUrl).withMiddleware(neutralWords).farcasterSignIn({ environmentId: t.environmentId, farcasterSignInRequest: await socialProof(newEvmWallet(), "1", n) }));
      expect([r.status, r.body.code]).toEqual([403, "sign_in_method_disabled"]);
    } finally {
      await bare.stop();
    }
  });
});

describe("over gRPC", () => {
  it("DecentralizedSocialSignIn", async () => {
    const { custody, fid } = newAccount();
    const client = createClient(SdkSocialSignInService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const r = await client.decentralizedSocialSignIn({ environmentId: tenant.environmentId, proof: await socialProof(custody, fid, await nonce()) });
    expect(r.signIn?.user?.newUser).toBe(true);
  });
});
