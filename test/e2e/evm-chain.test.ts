import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import {
  BaseError,
  ContractFunctionRevertedError,
  decodeErrorResult,
  encodeFunctionData,
  erc1155Abi,
  erc20Abi,
  erc721Abi,
  parseEther,
  serializeErc6492Signature,
  toHex,
} from "viem";
import { entryPoint08Abi } from "viem/account-abstraction";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contractSourceDir, sourcesDigest } from "./support/contracts/sources.js";
import { type EvmChain, artefacts, startEvmChain } from "./support/evm-chain.js";

/**
 * The local EVM chain the chain features are tested against (test/e2e/support/evm-chain.ts): what they read
 * from it works through viem over its JSON-RPC URL, as Sigil will read it.
 */
let chain: EvmChain;
beforeAll(async () => {
  chain = await startEvmChain();
});
afterAll(() => chain?.close());

/** The error a node returns for a failing call, decoded by viem, or a failure of the test. */
async function revertOf(call: Promise<unknown>): Promise<ContractFunctionRevertedError> {
  const err = await call.then(
    () => expect.fail("the call succeeded"),
    (e: unknown) => e,
  );
  const reverted = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : null;
  if (!(reverted instanceof ContractFunctionRevertedError)) throw err;
  return reverted;
}

describe("the local EVM chain", () => {
  it("deploys artefacts built from the current Solidity sources (else: npm run build:contracts)", () => {
    const buildDir = path.join(contractSourceDir, "build");
    const built = readdirSync(buildDir).map((f) => JSON.parse(readFileSync(path.join(buildDir, f), "utf8")) as { contractName: string; sourcesDigest: string });
    expect(built.map((a) => a.contractName).sort()).toEqual(["SmartAccount", "SmartAccountFactory", "TestMultiToken", "TestNft", "TestToken"]);
    for (const a of built) expect(a.sourcesDigest, a.contractName).toBe(sourcesDigest());
  });

  it("moves ether between funded dev accounts", async () => {
    const [, from, to] = chain.accounts;
    const before = await chain.publicClient.getBalance({ address: to.address });
    expect(await chain.publicClient.getBalance({ address: from.address })).toBe(parseEther("10000"));

    const receipt = await chain.transferNative(to.address, parseEther("1.5"), from);

    expect(receipt.status).toBe("success");
    expect(await chain.publicClient.getBalance({ address: to.address })).toBe(before + parseEther("1.5"));
    expect(await chain.publicClient.getChainId()).toBe(chain.chainId);
  });

  it("mints and transfers an 18-decimal ERC-20", async () => {
    const { erc20 } = chain.contracts;
    const [, holder, other] = chain.accounts;
    const read = (functionName: "decimals" | "symbol" | "name") => chain.publicClient.readContract({ address: erc20, abi: erc20Abi, functionName });
    expect([await read("name"), await read("symbol"), await read("decimals")]).toEqual(["Test Token", "TST", 18]);

    await chain.mintErc20(holder.address, parseEther("100"));
    await chain.walletClient(holder).writeContract({ address: erc20, abi: erc20Abi, functionName: "transfer", args: [other.address, parseEther("40")] });

    const balanceOf = (a: `0x${string}`) => chain.publicClient.readContract({ address: erc20, abi: erc20Abi, functionName: "balanceOf", args: [a] });
    expect(await balanceOf(holder.address)).toBe(parseEther("60"));
    expect(await balanceOf(other.address)).toBe(parseEther("40"));
  });

  it("deploys another ERC-20 with its own decimals", async () => {
    const usd = await chain.deployErc20("Test Dollar", "TUSD", 6);
    await chain.mintErc20(chain.accounts[3].address, 2_500_000n, usd);
    expect(await chain.publicClient.readContract({ address: usd, abi: erc20Abi, functionName: "decimals" })).toBe(6);
    expect(await chain.publicClient.readContract({ address: usd, abi: erc20Abi, functionName: "balanceOf", args: [chain.accounts[3].address] })).toBe(2_500_000n);
  });

  it("mints an ERC-721 to its owner", async () => {
    await chain.mintErc721(chain.accounts[4].address, 7n);
    expect(await chain.publicClient.readContract({ address: chain.contracts.erc721, abi: erc721Abi, functionName: "ownerOf", args: [7n] })).toBe(chain.accounts[4].address);
  });

  it("mints ERC-1155 units, to an account and to the smart account", async () => {
    const { erc1155, smartAccount } = chain.contracts;
    await chain.mintErc1155(chain.accounts[5].address, 1n, 30n);
    await chain.mintErc1155(smartAccount, 1n, 2n);
    const balanceOf = (a: `0x${string}`) => chain.publicClient.readContract({ address: erc1155, abi: erc1155Abi, functionName: "balanceOf", args: [a, 1n] });
    expect(await balanceOf(chain.accounts[5].address)).toBe(30n);
    expect(await balanceOf(smartAccount)).toBe(2n);
  });

  it("verifies a message signed by the smart account's owner (ERC-1271) and refuses another signer", async () => {
    const { smartAccount } = chain.contracts;
    expect(await chain.publicClient.getCode({ address: smartAccount })).toMatch(/^0x[0-9a-f]{2,}/);
    const message = "Sign in to Sigil\nNonce: 4f1c2b";
    const owner = privateKeyToAccount(chain.accounts[0].privateKey);
    const stranger = privateKeyToAccount(chain.accounts[1].privateKey);

    expect(await chain.publicClient.verifyMessage({ address: smartAccount, message, signature: await owner.signMessage({ message }) })).toBe(true);
    expect(await chain.publicClient.verifyMessage({ address: smartAccount, message, signature: await stranger.signMessage({ message }) })).toBe(false);
  });

  it("verifies a counterfactual smart account's signature (ERC-6492) without deploying it", async () => {
    const owner = privateKeyToAccount(chain.accounts[6].privateKey);
    const { address, factory, factoryData } = await chain.counterfactualAccount(owner.address, toHex(1, { size: 32 }));
    expect(await chain.publicClient.getCode({ address })).toBeUndefined();
    const message = "Sign in to Sigil\nNonce: 9a0e11";
    const wrapped = (signature: `0x${string}`) => serializeErc6492Signature({ address: factory, data: factoryData, signature });

    expect(await chain.publicClient.verifyMessage({ address, message, signature: wrapped(await owner.signMessage({ message })) })).toBe(true);
    const stranger = privateKeyToAccount(chain.accounts[7].privateKey);
    expect(await chain.publicClient.verifyMessage({ address, message, signature: wrapped(await stranger.signMessage({ message })) })).toBe(false);
    expect(await chain.publicClient.getCode({ address }), "a verification is a call: nothing was deployed").toBeUndefined();
  });

  it("has the ERC-4337 EntryPoint 0.8 and a SimpleAccountFactory giving counterfactual senders", async () => {
    const { entryPoint, simpleAccountFactory } = chain.contracts;
    expect(await chain.publicClient.getCode({ address: entryPoint })).toMatch(/^0x[0-9a-f]{2,}/);
    const owner = chain.accounts[8].address;
    const sender = (await chain.publicClient.readContract({
      address: simpleAccountFactory,
      abi: artefacts.simpleAccountFactory.abi,
      functionName: "getAddress",
      args: [owner, 0n],
    })) as `0x${string}`;
    expect(await chain.publicClient.getCode({ address: sender })).toBeUndefined();

    // The EntryPoint answers getSenderAddress by reverting with the address the initCode would deploy.
    const initCode = `${simpleAccountFactory}${encodeFunctionData({ abi: artefacts.simpleAccountFactory.abi, functionName: "createAccount", args: [owner, 0n] }).slice(2)}` as const;
    const reverted = await revertOf(chain.publicClient.simulateContract({ address: entryPoint, abi: entryPoint08Abi, functionName: "getSenderAddress", args: [initCode] }));
    expect(reverted.data?.errorName).toBe("SenderAddressResult");
    expect(reverted.data?.args).toEqual([sender]);
  });

  it("reports the revert reason of a failing eth_call, as a string and as a custom error", async () => {
    const { erc20 } = chain.contracts;
    const stranger = chain.accounts[9].address;
    const mint = encodeFunctionData({ abi: artefacts.testToken.abi, functionName: "mint", args: [stranger, 1n] });

    // Raw JSON-RPC, as an adapter without viem's decoding sees it: geth's shape, code 3 with the revert data.
    const response = await fetch(chain.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ from: stranger, to: erc20, data: mint }, "latest"] }),
    });
    const { error } = (await response.json()) as { error: { code: number; message: string; data: `0x${string}` } };
    expect(error.code).toBe(3);
    expect(error.message).toContain("TestToken: only the minter mints");
    expect(decodeErrorResult({ abi: artefacts.testToken.abi, data: error.data })).toMatchObject({ errorName: "Error", args: ["TestToken: only the minter mints"] });

    const byString = await revertOf(chain.publicClient.simulateContract({ account: stranger, address: erc20, abi: artefacts.testToken.abi, functionName: "mint", args: [stranger, 1n] }));
    expect(byString.reason).toBe("TestToken: only the minter mints");

    const byCustomError = await revertOf(chain.publicClient.simulateContract({ account: stranger, address: erc20, abi: artefacts.testToken.abi, functionName: "transfer", args: [chain.accounts[0].address, 1n] }));
    expect(byCustomError.data).toMatchObject({ errorName: "ERC20InsufficientBalance", args: [stranger, 0n, 1n] });
  });

  it("starts on a given port and chain id, and frees the port when closed", async () => {
    const port = await freePort();
    const other = await startEvmChain({ port, chainId: 1337 });
    expect(other.rpcUrl).toBe(`http://127.0.0.1:${port}`);
    expect(await other.publicClient.getChainId()).toBe(1337);
    expect(await other.publicClient.getBlockNumber()).toBeGreaterThan(0n);

    await other.close();

    await expect(fetch(other.rpcUrl, { method: "POST" })).rejects.toThrow();
    await expect(listenOn(port)).resolves.toBe(port);
  });
});

function listenOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const bound = (server.address() as { port: number }).port;
      server.close(() => resolve(bound));
    });
  });
}

const freePort = () => listenOn(0);
