import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { Configuration, SDKApi, type VerifyRequest } from "@dynamic-labs/sdk-api";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import { SdkSessionsService } from "../../../src/gen/sigil/sessions/v0/sessions_service_pb.js";
import { UsersService } from "../../../src/gen/sigil/users/v0/users_service_pb.js";
import { SdkWalletSignInService } from "../../../src/gen/sigil/wallet_sign_in/v0/wallet_sign_in_service_pb.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { call } from "../../support/http.js";
import { refused, sdkFor } from "../../support/sdk-client.js";
import { signInAs } from "../../support/sessions.js";
import { APP_DOMAIN, APP_URI, evmProof, newEvmWallet, newSolanaWallet, solanaProof, type SolanaWallet } from "../../support/wallet-proofs.js";

/**
 * Attacks on how a request is read before any capability sees it, replayed through the published client
 * over REST and through Connect / gRPC: the client address (X-Forwarded-For believed only from a trusted
 * proxy), ids checked before a session is verified, and the wallet sign-in messages' fixed layouts.
 */

const SDK_LIMIT = 4;
/** Every call here comes from 127.0.0.1: the app that trusts no proxy sees that one address. */
let direct: TestApp;
/** The same service behind a load balancer on loopback (SIGIL_TRUSTED_PROXIES=127.0.0.0/8). */
let proxied: TestApp;
/** The test setup's defaults (no SDK limits): for the attacks that are not about addresses. */
let plain: TestApp;
let t: BootstrapResult;
let tp: BootstrapResult;
let tn: BootstrapResult;

beforeAll(async () => {
  const limits = { sdkRateLimits: { perAddressPer10s: SDK_LIMIT, signInPerAddressPerMinute: 0 } };
  [direct, proxied, plain] = await Promise.all([startTestApp(limits), startTestApp({ ...limits, trustedProxies: ["127.0.0.0/8"] }), startTestApp()]);
  t = await direct.bootstrap({ ownerEmail: `attacks-requests-${randomUUID()}@example.com` });
  tp = await proxied.bootstrap({ ownerEmail: `attacks-requests-${randomUUID()}@example.com` });
  tn = await plain.bootstrap({ ownerEmail: `attacks-requests-${randomUUID()}@example.com` });
}, 180_000);
afterAll(async () => {
  await Promise.all([direct?.stop(), proxied?.stop(), plain?.stop()]);
});
// Each test starts with a fresh SDK window for the loopback address.
beforeEach(async () => {
  for (const app of [direct, proxied]) await app.store.del("ratelimit:sdk:127.0.0.1");
});

/** The published client as an app behind (or pretending to be behind) a proxy calls it. */
const sdkVia = (app: TestApp, forwardedFor?: string, jwt?: string) =>
  new SDKApi(
    new Configuration({
      basePath: `${app.baseUrl}/api/v0`,
      headers: { ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}), ...(jwt ? { authorization: `Bearer ${jwt}` } : {}) },
    }),
  );
const grpcSignIn = (app: TestApp) => createClient(SdkWalletSignInService, createGrpcTransport({ baseUrl: app.baseUrl }));
const status = async (p: Promise<unknown>) => {
  try {
    await p;
    return 200;
  } catch (err) {
    if (err instanceof ConnectError) return err.code === Code.ResourceExhausted ? 429 : 500;
    return (await refused(Promise.reject(err))).status;
  }
};

describe("client address: X-Forwarded-For is believed only from a trusted proxy", () => {
  it("ignores a forwarded-for header from a peer that is not a trusted proxy (REST and gRPC share the socket's bucket)", async () => {
    const envId = t.environmentId;
    const statuses = [
      await status(sdkVia(direct, "203.0.113.1").getNonce({ environmentId: envId })),
      await status(sdkVia(direct, "203.0.113.2").getNonce({ environmentId: envId })),
      await status(grpcSignIn(direct).getNonce({ environmentId: envId }, { headers: { "x-forwarded-for": "203.0.113.3" } })),
      await status(grpcSignIn(direct).getNonce({ environmentId: envId }, { headers: { "x-forwarded-for": "203.0.113.4" } })),
    ];
    expect(statuses).toEqual([200, 200, 200, 200]);
    expect(await status(sdkVia(direct, "203.0.113.5").getNonce({ environmentId: envId }))).toBe(429);
    expect(await status(grpcSignIn(direct).getNonce({ environmentId: envId }, { headers: { "x-forwarded-for": "203.0.113.6" } }))).toBe(429);
  });

  it("records the socket's address on a session whatever the client forwards", async () => {
    const wallet = newEvmWallet();
    const nonce = (await sdkVia(direct).getNonce({ environmentId: t.environmentId })).nonce!;
    const r = await sdkVia(direct, "203.0.113.77").verify({ environmentId: t.environmentId, verifyRequest: await evmProof(wallet, nonce) });
    const row = await direct.db.one("SELECT ip_address FROM sessions WHERE user_id = $1", [r.user.id]);
    expect(String(row.ip_address)).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  });

  it("behind a trusted proxy, two users with different forwarded addresses get separate buckets (REST)", async () => {
    const envId = tp.environmentId;
    for (let i = 0; i < SDK_LIMIT; i++) expect(await status(sdkVia(proxied, "198.51.100.10").getNonce({ environmentId: envId }))).toBe(200);
    expect(await status(sdkVia(proxied, "198.51.100.10").getNonce({ environmentId: envId }))).toBe(429);
    // A second user behind the same load balancer is not blocked by the first.
    expect(await status(sdkVia(proxied, "198.51.100.11").getNonce({ environmentId: envId }))).toBe(200);
    // Prepending a made-up address does not buy the first user a new bucket: the proxy's entry is the right-most.
    expect(await status(sdkVia(proxied, "192.0.2.99, 198.51.100.10").getNonce({ environmentId: envId }))).toBe(429);
  });

  it("behind a trusted proxy, gRPC metadata x-forwarded-for separates users the same way", async () => {
    const envId = tp.environmentId;
    const as = (address: string) => grpcSignIn(proxied).getNonce({ environmentId: envId }, { headers: { "x-forwarded-for": address } });
    for (let i = 0; i < SDK_LIMIT; i++) expect(await status(as("198.51.100.20"))).toBe(200);
    expect(await status(as("198.51.100.20"))).toBe(429);
    expect(await status(as("198.51.100.21"))).toBe(200);
    expect(await status(as("10.9.9.9, 198.51.100.20"))).toBe(429);
  });

  it("behind a trusted proxy, a session records the forwarded client address", async () => {
    const wallet = newEvmWallet();
    const nonce = (await sdkVia(proxied, "198.51.100.30").getNonce({ environmentId: tp.environmentId })).nonce!;
    const r = await sdkVia(proxied, "192.0.2.1, 198.51.100.30").verify({ environmentId: tp.environmentId, verifyRequest: await evmProof(wallet, nonce) });
    const row = await proxied.db.one("SELECT ip_address FROM sessions WHERE user_id = $1", [r.user.id]);
    expect(String(row.ip_address)).toBe("198.51.100.30");
  });
});

describe("ids are checked before a session or token is verified", () => {
  it("answers a valid session naming a non-UUID environment with 400 validation_error (REST)", async () => {
    const s = await signInAs(plain, tn.environmentId);
    const r = await refused(sdkFor(plain.baseUrl, s.jwt).sessionCheck({ environmentId: "not-a-uuid" }));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: "validation_error", payload: { errors: [{ field: "environmentId" }] } });
    const refresh = await call(plain.baseUrl, "POST", "/sdk/not-a-uuid/refresh", { token: s.jwt, body: {} });
    expect(refresh.status).toBe(400);
    expect(refresh.body.code).toBe("validation_error");
  });

  it("answers the same over Connect and gRPC with InvalidArgument naming the field", async () => {
    const s = await signInAs(plain, tn.environmentId);
    const headers = { authorization: `Bearer ${s.jwt}` };
    for (const transport of [createConnectTransport({ baseUrl: plain.baseUrl, httpVersion: "1.1" }), createGrpcTransport({ baseUrl: plain.baseUrl })]) {
      const client = createClient(SdkSessionsService, transport);
      const err = await client.sessionCheck({ environmentId: "not-a-uuid" }, { headers }).then(
        () => null,
        (e: unknown) => ConnectError.from(e),
      );
      expect(err?.code).toBe(Code.InvalidArgument);
      expect(err?.rawMessage).toMatch(/environmentId/);
    }
  });

  it("answers a valid API token naming a non-UUID id with 400 (REST, Connect, gRPC)", async () => {
    const res = await call(plain.baseUrl, "GET", `/environments/not-a-uuid/users/${randomUUID()}`, { token: tn.token });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_error");
    const headers = { authorization: `Bearer ${tn.token}` };
    for (const transport of [createConnectTransport({ baseUrl: plain.baseUrl, httpVersion: "1.1" }), createGrpcTransport({ baseUrl: plain.baseUrl })]) {
      const err = await createClient(UsersService, transport)
        .getUser({ environmentId: "not-a-uuid", userId: randomUUID() }, { headers })
        .then(() => null, (e: unknown) => ConnectError.from(e));
      expect(err?.code).toBe(Code.InvalidArgument);
    }
  });
});

/** A Solana sign-in message with the given lines after the address (the fields block written by the test). */
function siws(wallet: SolanaWallet, after: string[]): string {
  return [`${APP_DOMAIN} wants you to sign in with your Solana account:`, wallet.address, "", ...after].join("\n");
}
const fields = (nonce: string) => [`URI: ${APP_URI}`, "Version: 1", "Chain ID: mainnet", `Nonce: ${nonce}`, `Issued At: ${new Date().toISOString()}`];
const signedSolana = (wallet: SolanaWallet, message: string): VerifyRequest => solanaProof(wallet, "", { message });
const grpcProof = (p: VerifyRequest) => ({
  chain: p.chain,
  publicWalletAddress: p.publicWalletAddress,
  messageToSign: p.messageToSign,
  signedMessage: p.signedMessage,
  walletName: p.walletName,
  walletProvider: p.walletProvider,
});

describe("Solana sign-in messages are read in their fixed layout", () => {
  const nonceOf = async () => (await sdkVia(plain).getNonce({ environmentId: tn.environmentId })).nonce!;

  it("refuses a Nonce smuggled into the statement (REST and gRPC)", async () => {
    for (const via of ["rest", "grpc"] as const) {
      const wallet = newSolanaWallet();
      const issued = await nonceOf();
      // The statement carries the issued nonce; the field is one the server never issued.
      const proof = signedSolana(wallet, siws(wallet, [`Nonce: ${issued}`, "", ...fields("notissued0000000")]));
      if (via === "rest") {
        const r = await refused(sdkVia(plain).verify({ environmentId: tn.environmentId, verifyRequest: proof }));
        expect(r).toMatchObject({ status: 422, body: { code: "invalid_nonce" } });
      } else {
        const err = await grpcSignIn(plain)
          .verify({ environmentId: tn.environmentId, proof: grpcProof(proof) })
          .then(() => null, (e: unknown) => ConnectError.from(e));
        expect(err?.code).toBe(Code.FailedPrecondition);
        expect(err?.rawMessage).toMatch(/nonce/);
      }
      // The issued nonce was not spent by the refused message: the real sign-in still works with it.
      expect((await sdkVia(plain).verify({ environmentId: tn.environmentId, verifyRequest: solanaProof(wallet, issued) })).user.newUser).toBe(true);
    }
  });

  it("refuses fields out of order, repeated, unknown, or only inside the statement, with 400 invalid_message", async () => {
    const wallet = newSolanaWallet();
    const n = await nonceOf();
    const [uri, version, chain, nonce, issuedAt] = fields(n);
    const layouts = [
      [nonce, uri, version, chain, issuedAt], // out of order
      [uri, version, chain, nonce, nonce, issuedAt], // repeated
      [uri, version, chain, nonce, issuedAt, "Favourite Colour: blue"], // unknown
      [nonce, "", "Sign in"], // a Nonce only where the statement goes, then a statement-like block
      [uri, version, chain, "", nonce, issuedAt], // a blank line inside the fields
    ];
    for (const lines of layouts) {
      const r = await refused(sdkVia(plain).verify({ environmentId: tn.environmentId, verifyRequest: signedSolana(wallet, siws(wallet, lines)) }));
      expect(r, lines.join(" | ")).toMatchObject({ status: 400, body: { code: "invalid_message" } });
    }
  });

  it("accepts the layouts wallets write: with a statement, without one, and with only some fields", async () => {
    const make = (n: string) => [
      ["Sign in to the example app", "", ...fields(n)],
      fields(n),
      [`URI: ${APP_URI}`, `Nonce: ${n}`, `Issued At: ${new Date().toISOString()}`, "Resources:", "- https://app.example.com/terms"],
    ];
    for (let i = 0; i < 3; i++) {
      const wallet = newSolanaWallet();
      const lines = make(await nonceOf())[i]!;
      const r = await sdkVia(plain).verify({ environmentId: tn.environmentId, verifyRequest: signedSolana(wallet, siws(wallet, lines)) });
      expect(r.user.newUser, lines.join(" | ")).toBe(true);
    }
  });
});

describe("SIWE Chain ID against the environment's EVM networks", () => {
  it("refuses a chain id the environment does not list (REST and gRPC), accepts a listed one", async () => {
    const env = await plain.bootstrap({ ownerEmail: `attacks-requests-${randomUUID()}@example.com` });
    const put = await call(plain.baseUrl, "PUT", `/environments/${env.environmentId}`, {
      token: env.token,
      body: {
        chains: [
          { name: "EVM", enabled: true, networks: [{ networkId: 1, chainName: "Ethereum", enabled: true }, { networkId: 137, chainName: "Polygon", enabled: false }] },
        ],
      },
    });
    expect(put.status, put.text).toBe(200);
    const nonceOfEnv = async () => (await sdkVia(plain).getNonce({ environmentId: env.environmentId })).nonce!;

    for (const chainId of [10, 137]) {
      const proof = await evmProof(newEvmWallet(), await nonceOfEnv(), { chainId });
      const r = await refused(sdkVia(plain).verify({ environmentId: env.environmentId, verifyRequest: proof }));
      expect(r).toMatchObject({ status: 422, body: { code: "chain_id_not_allowed" } });
      const err = await grpcSignIn(plain)
        .verify({ environmentId: env.environmentId, proof: grpcProof(await evmProof(newEvmWallet(), await nonceOfEnv(), { chainId })) })
        .then(() => null, (e: unknown) => ConnectError.from(e));
      expect(err?.code).toBe(Code.FailedPrecondition);
      expect(err?.rawMessage).toMatch(/Chain ID/);
    }
    const ok = await sdkVia(plain).verify({ environmentId: env.environmentId, verifyRequest: await evmProof(newEvmWallet(), await nonceOfEnv(), { chainId: 1 }) });
    expect(ok.user.newUser).toBe(true);
  });

  it("accepts any chain id where the environment lists no EVM networks", async () => {
    const proof = await evmProof(newEvmWallet(), (await sdkVia(plain).getNonce({ environmentId: tn.environmentId })).nonce!, { chainId: 8453 });
    expect((await sdkVia(plain).verify({ environmentId: tn.environmentId, verifyRequest: proof })).user.newUser).toBe(true);
  });
});
