import { createClient, Code, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ChainEnum, type SDKApi } from "@dynamic-labs/sdk-api";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CHAIN_SETTINGS } from "../../src/config-chains.js";
import { SdkBalancesService } from "../../src/gen/sigil/balances/v0/sdk_balances_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";
import { refused, sdkFor } from "../support/sdk-client.js";
import { startEvmChain, type EvmChain } from "./support/evm-chain.js";

/**
 * A node's chain identity: an EVM node whose eth_chainId is not the network it is configured for answers
 * 422 chain_mismatch, never the other chain's data (a tenant's URL or the operator's default alike).
 */

let app: TestApp;
let evm: EvmChain;
let sdk: SDKApi;

beforeAll(async () => {
  evm = await startEvmChain();
  // The operator's default for 1 (Ethereum mainnet) points at the local chain (31337) by mistake.
  app = await startTestApp({ chains: { ...DEFAULT_CHAIN_SETTINGS, evmRpcUrls: { 1: evm.rpcUrl, 31337: evm.rpcUrl } } }, { dispatcher: false });
  sdk = sdkFor(app.baseUrl);
}, 90_000);
afterAll(async () => {
  await app?.stop();
  await evm?.close();
});

const holder = () => privateKeyToAddress(generatePrivateKey());

describe("a node that serves another chain than its network's", () => {
  it("422 chain_mismatch for an environment whose network id differs from its node's chain id, the node's id in the payload", async () => {
    const t = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
    const set = await call(app.baseUrl, "PUT", `/environments/${t.environmentId}`, {
      token: t.token,
      body: { chains: [{ name: "EVM", enabled: true, networks: [{ networkId: 8453, enabled: true, rpcUrl: evm.rpcUrl }] }] },
    });
    expect(set.status, set.text).toBe(200);
    const r = await refused(sdk.getAccountBalances({ environmentId: t.environmentId, chainName: ChainEnum.Evm, accountAddress: holder(), networkId: 8453 }));
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body).toMatchObject({ code: "chain_mismatch", payload: { chain: "EVM", networkId: 8453, nodeChainId: 31337 } });
    const multi = await refused(
      sdk.postMultichainAccountBalances({ environmentId: t.environmentId, multichainAccountBalancesRequest: { balanceRequests: [{ address: holder(), chain: ChainEnum.Evm, networkIds: [8453] }] } }),
    );
    expect(multi.status).toBe(422);
    expect(multi.body.code).toBe("chain_mismatch");
  });

  it("checks the operator's default too, and still reads the network whose node is the right chain", async () => {
    const t = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
    const wrong = await refused(sdk.getAccountBalances({ environmentId: t.environmentId, chainName: ChainEnum.Evm, accountAddress: holder(), networkId: 1 }));
    expect(wrong.status).toBe(422);
    expect(wrong.body.code).toBe("chain_mismatch");
    const right = await sdk.getAccountBalances({ environmentId: t.environmentId, chainName: ChainEnum.Evm, accountAddress: holder(), networkId: 31337 });
    expect(right).toEqual([expect.objectContaining({ networkId: 31337, isNative: true })]);
  });

  it("over gRPC: FAILED_PRECONDITION with the code", async () => {
    const t = await app.bootstrap({ ownerEmail: `${crypto.randomUUID()}@example.com` });
    const client = createClient(SdkBalancesService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const err = ConnectError.from(await client.getAccountBalances({ environmentId: t.environmentId, chainName: "EVM", accountAddress: holder(), networkId: 1n }).catch((e) => e));
    expect(err.code).toBe(Code.FailedPrecondition);
    expect(err.metadata.get("sigil-error-code")).toBe("chain_mismatch");
  });
});
