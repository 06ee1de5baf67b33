import { randomUUID } from "node:crypto";
import { createClient, Code, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ChainEnum, WalletProviderEnum, type VerifyRequest } from "@dynamic-labs/sdk-api";
import { keccak256, serializeErc6492Signature, toHex, type Address, type Hex } from "viem";
import { createSiweMessage } from "viem/siwe";
import type { PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHAIN_SETTINGS } from "../../src/config-chains.js";
import { DEFAULT_EXTERNAL_SIGN_IN_SETTINGS } from "../../src/config.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { SdkWalletSignInService } from "../../src/gen/sigil/wallet_sign_in/v0/wallet_sign_in_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { APP_DOMAIN, APP_URI, evmProof, newEvmWallet } from "../support/wallet-proofs.js";
import { startEvmChain, type EvmChain } from "./support/evm-chain.js";
import { SocialHubPeer } from "./support/social-hub-peer.js";
import { neutralWords } from "../support/neutral-words.js";

/**
 * Smart-contract wallets signing in with Sign-In With Ethereum through the published client's SDKApi.verify
 * (and gRPC): an ERC-1271 account (deployed) and an ERC-6492 counterfactual one, verified against the local
 * Hardhat chain as the operator's node for its chain id, and the attacks on them.
 */

let app: TestApp;
let evm: EvmChain;
let tenant: BootstrapResult;
let hub: SocialHubPeer;
/** A chain id whose operator node refuses connections (a node that is down). */
const DOWN_CHAIN_ID = 4242;

beforeAll(async () => {
  [evm, hub] = await Promise.all([startEvmChain(), SocialHubPeer.start()]);
  const down = await startEvmChain({ chainId: DOWN_CHAIN_ID });
  const downUrl = down.rpcUrl;
  await down.close();
  app = await startTestApp(
    {
      chains: { ...DEFAULT_CHAIN_SETTINGS, evmRpcUrls: { [evm.chainId]: evm.rpcUrl, [DOWN_CHAIN_ID]: downUrl } },
      externalSignIn: { ...DEFAULT_EXTERNAL_SIGN_IN_SETTINGS, socialHubUrl: hub.url },
    },
    { dispatcher: false },
  );
  tenant = await app.bootstrap({ ownerEmail: `smart-wallet-${randomUUID()}@example.com` });
}, 90_000);
afterAll(async () => {
  await app?.stop();
  await Promise.all([evm?.close(), hub?.stop()]);
});

const sdk = () => sdkFor(app.baseUrl);
const nonce = async () => (await sdk().getNonce({ environmentId: tenant.environmentId })).nonce!;
const verify = (proof: VerifyRequest) => sdk().verify({ environmentId: tenant.environmentId, verifyRequest: proof });

/** A SIWE message naming `address` on `chainId`, signed (EIP-191) by `signer`: what a smart wallet's owner signs. */
async function contractProof(address: Address, signer: PrivateKeyAccount, o: { chainId?: number; wrap?: (sig: Hex) => Hex } = {}): Promise<VerifyRequest> {
  const message = createSiweMessage({
    address,
    chainId: o.chainId ?? evm.chainId,
    domain: APP_DOMAIN,
    uri: APP_URI,
    version: "1",
    nonce: await nonce(),
    issuedAt: new Date(),
  });
  const signature = await signer.signMessage({ message });
  return {
    chain: ChainEnum.Evm,
    publicWalletAddress: address,
    messageToSign: message,
    signedMessage: o.wrap ? o.wrap(signature) : signature,
    walletName: "smart",
    walletProvider: WalletProviderEnum.SmartContractWallet,
  };
}

const owner0 = () => ({ address: evm.accounts[0].address, signMessage: evm.walletClient().account.signMessage }) as unknown as PrivateKeyAccount;
const salt = () => keccak256(toHex(randomUUID()));
const walletRows = async (address: string) =>
  (await app.db.one("SELECT count(*)::int AS n FROM wallets WHERE environment_id = $1 AND lower(address) = lower($2)", [tenant.environmentId, address])).n;

describe("ERC-1271: a deployed smart account", () => {
  it("signs in with its owner's signature, as a user holding the account's address", async () => {
    const r = await verify(await contractProof(evm.contracts.smartAccount, owner0()));
    expect(r.user.newUser).toBe(true);
    expect(r.user.verifiedCredentials?.find((c) => c.format === "blockchain")).toMatchObject({ address: evm.contracts.smartAccount, chain: "EVM" });
  });

  it("refuses a signature its owner did not make, without using up the nonce", async () => {
    const proof = await contractProof(evm.contracts.smartAccount, newEvmWallet());
    expect(await refused(verify(proof))).toMatchObject({ status: 422, body: { code: "invalid_signature" } });
    // The same message, signed by the owner, still signs in: the refused attempt did not burn the nonce.
    const genuine = { ...proof, signedMessage: await owner0().signMessage({ message: proof.messageToSign }) };
    expect((await verify(genuine)).user.verifiedCredentials?.some((c) => c.address === evm.contracts.smartAccount)).toBe(true);
  });

  it("refuses a replay of a good proof: the nonce is used up", async () => {
    const proof = await contractProof(evm.contracts.smartAccount, owner0());
    await verify(proof);
    expect(await refused(verify(proof))).toMatchObject({ status: 422, body: { code: "invalid_nonce" } });
  });

  it("lets one of two simultaneous uses of a proof win; the other is invalid_nonce", async () => {
    const proof = await contractProof(evm.contracts.smartAccount, owner0());
    const results = await Promise.allSettled([verify(proof), verify(proof), verify(proof)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected"))
      expect(await refused(Promise.reject((r as PromiseRejectedResult).reason))).toMatchObject({ status: 422, body: { code: "invalid_nonce" } });
  });

  it("verifies on the node of the message's Chain ID only: signed for a chain with no node it is refused, a node that is down 503", async () => {
    // The account's owner signed for chain 1, where no node is configured: never checked on the 31337 node.
    // The owner's signature is 65 bytes, so it is answered as an EOA signature that does not verify.
    const elsewhere = await refused(verify(await contractProof(evm.contracts.smartAccount, owner0(), { chainId: 1 })));
    expect(elsewhere).toMatchObject({ status: 422, body: { code: "invalid_signature" } });
    // A 6492-wrapped signature can only be a contract's: what is missing is said.
    const owner = newEvmWallet();
    const account = await evm.counterfactualAccount(owner.address, salt());
    const wrapped = await contractProof(account.address, owner, {
      chainId: 1,
      wrap: (signature) => serializeErc6492Signature({ address: account.factory, data: account.factoryData, signature }),
    });
    expect(await refused(verify(wrapped))).toMatchObject({ status: 422, body: { code: "not_configured", payload: { chainId: "1" } } });
    const down = await refused(verify(await contractProof(evm.contracts.smartAccount, owner0(), { chainId: DOWN_CHAIN_ID })));
    expect(down).toMatchObject({ status: 503, body: { code: "chain_unavailable" } });
    expect(Number(down.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await walletRows(evm.contracts.smartAccount)).toBe(1);
  });
});

describe("ERC-6492: a counterfactual (not yet deployed) smart account", () => {
  it("signs in with the factory call and its owner's signature; nothing is deployed", async () => {
    const owner = newEvmWallet();
    const account = await evm.counterfactualAccount(owner.address, salt());
    const proof = await contractProof(account.address, owner, {
      wrap: (signature) => serializeErc6492Signature({ address: account.factory, data: account.factoryData, signature }),
    });
    const r = await verify(proof);
    expect(r.user.verifiedCredentials?.find((c) => c.format === "blockchain")).toMatchObject({ address: account.address });
    expect(await evm.publicClient.getCode({ address: account.address })).toBeUndefined();
  });

  it("refuses a wrapper whose factory call deploys an account someone else owns, or that the owner did not sign", async () => {
    const victim = newEvmWallet();
    const attacker = newEvmWallet();
    const s = salt();
    const victims = await evm.counterfactualAccount(victim.address, s);
    const attackers = await evm.counterfactualAccount(attacker.address, s);
    // The victim's address claimed, the attacker's account deployed by the factory call, the attacker's signature.
    const swapped = await contractProof(victims.address, attacker, {
      wrap: (signature) => serializeErc6492Signature({ address: attackers.factory, data: attackers.factoryData, signature }),
    });
    expect(await refused(verify(swapped))).toMatchObject({ status: 422, body: { code: "invalid_signature" } });
    // The victim's own factory call, signed by the attacker.
    const forged = await contractProof(victims.address, attacker, {
      wrap: (signature) => serializeErc6492Signature({ address: victims.factory, data: victims.factoryData, signature }),
    });
    expect(await refused(verify(forged))).toMatchObject({ status: 422, body: { code: "invalid_signature" } });
    expect(await walletRows(victims.address)).toBe(0);
  });
});

describe("the EOA path", () => {
  it("never asks a node about a plain EOA signature (its chain's node being down changes nothing)", async () => {
    const r = await verify(await evmProof(newEvmWallet(), await nonce(), { chainId: DOWN_CHAIN_ID }));
    expect(r.user.newUser).toBe(true);
  });

  it("with no node for the chain: an EOA-shaped signature that does not verify is invalid_signature, any other 422 not_configured", async () => {
    const wallet = newEvmWallet();
    const proof = await evmProof(wallet, await nonce());
    const forged = { ...proof, signedMessage: await newEvmWallet().signMessage({ message: proof.messageToSign }) };
    expect(await refused(verify(forged))).toMatchObject({ status: 422, body: { code: "invalid_signature" } });
    const contractShaped = { ...proof, signedMessage: `0x${"ab".repeat(100)}` };
    expect(await refused(verify(contractShaped))).toMatchObject({ status: 422, body: { code: "not_configured" } });
    expect(await refused(verify({ ...proof, signedMessage: "0xzz" }))).toMatchObject({ status: 400, body: { code: "invalid_signature" } });
    expect((await verify(proof)).user.newUser).toBe(true);
  });
});

describe("decentralized-social sign-in with a smart-contract custody wallet", () => {
  it("signs in when the custody account (ERC-1271) accepts its owner's signature, and refuses another signer", async () => {
    const fid = String(700_000 + Math.floor(Math.random() * 100_000));
    hub.accounts.set(fid, { custodyAddress: evm.contracts.smartAccount.toLowerCase(), username: `u${fid}`, displayName: `U ${fid}`, pfpUrl: `https://img.example.com/${fid}.png` });
    const social = sdkFor(app.baseUrl).withMiddleware(neutralWords);
    const request = async (signer: PrivateKeyAccount) => {
      const n = await nonce();
      const message = createSiweMessage({
        address: evm.contracts.smartAccount, chainId: evm.chainId, domain: APP_DOMAIN, uri: APP_URI, version: "1", nonce: n, issuedAt: new Date(), resources: [`farcaster://fid/${fid}`],
      });
      return { address: evm.contracts.smartAccount, domain: APP_DOMAIN, nonce: n, message, signature: await signer.signMessage({ message }) };
    };
    const forged = await refused(social.farcasterSignIn({ environmentId: tenant.environmentId, farcasterSignInRequest: await request(newEvmWallet()) }));
    expect(forged).toMatchObject({ status: 422, body: { code: "invalid_signature" } });
    const r = await social.farcasterSignIn({ environmentId: tenant.environmentId, farcasterSignInRequest: await request(owner0()) });
    expect(r.jwt).toBeTruthy();
  });
});

describe("SdkWalletSignInService.Verify over gRPC", () => {
  it("signs a smart account in, and answers UNAVAILABLE with retry-after for a node that is down", async () => {
    const client = createClient(SdkWalletSignInService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const ok = await client.verify({ environmentId: tenant.environmentId, proof: await contractProof(evm.contracts.smartAccount, owner0()) });
    expect(ok.signIn?.jwt).toBeTruthy();
    const refusedProof = await contractProof(evm.contracts.smartAccount, newEvmWallet());
    const bad = await client.verify({ environmentId: tenant.environmentId, proof: refusedProof }).catch((e) => e);
    expect(ConnectError.from(bad).code).toBe(Code.FailedPrecondition);
    const downProof = await contractProof(evm.contracts.smartAccount, owner0(), { chainId: DOWN_CHAIN_ID });
    const down = await client.verify({ environmentId: tenant.environmentId, proof: downProof }).catch((e) => e);
    expect(ConnectError.from(down).code).toBe(Code.Unavailable);
    expect(ConnectError.from(down).metadata.get("retry-after")).toBeTruthy();
  });
});
