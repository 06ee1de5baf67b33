import path from "node:path";
import { createHardhatRuntimeEnvironment } from "hardhat/hre";
import {
  type Abi,
  type Address,
  type Chain,
  type Hex,
  type HttpTransport,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  getAddress,
  http,
  toHex,
} from "viem";
import { type PrivateKeyAccount, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import entryPointArtefact from "@account-abstraction/contracts/artifacts/EntryPoint.json" with { type: "json" };
import simpleAccountFactoryArtefact from "@account-abstraction/contracts/artifacts/SimpleAccountFactory.json" with { type: "json" };
import smartAccountArtefact from "./contracts/build/SmartAccount.json" with { type: "json" };
import smartAccountFactoryArtefact from "./contracts/build/SmartAccountFactory.json" with { type: "json" };
import testMultiTokenArtefact from "./contracts/build/TestMultiToken.json" with { type: "json" };
import testNftArtefact from "./contracts/build/TestNft.json" with { type: "json" };
import testTokenArtefact from "./contracts/build/TestToken.json" with { type: "json" };

/**
 * A local EVM chain for tests and for a person trying Sigil by hand: Hardhat's simulated network (EDR, in
 * this process) behind Hardhat's own JSON-RPC server (HTTP and WebSocket on one port), with funded dev
 * accounts and the test contracts deployed. Offline, a second or two to start; every transaction is mined
 * at once (automine), so a receipt exists as soon as the send returns. The same deployer and order each
 * time, so the contracts' addresses are the same on every start.
 *
 * Through Hardhat's library (hardhat/hre), not `npx hardhat node`: Hardhat 3.9's command line refuses Node
 * below 22.13, while its library and EDR run on the Node 20 Sigil supports.
 *
 * Contracts: ours are compiled by `npm run build:contracts` (scripts/build-test-contracts.ts, artefacts
 * committed under ./contracts/build); the ERC-4337 EntryPoint 0.8 and its SimpleAccountFactory are the
 * artefacts @account-abstraction/contracts 0.8.0 publishes. Read balances with viem's erc20Abi, erc721Abi,
 * erc1155Abi, and the EntryPoint with entryPoint08Abi (viem/account-abstraction).
 */

interface Artefact {
  abi: Abi;
  bytecode: Hex;
}

const artefact = (a: { abi: unknown[]; bytecode: string }): Artefact => ({ abi: a.abi as Abi, bytecode: a.bytecode as Hex });

/** Every contract the chain deploys, to deploy another one or to encode a call the helpers do not cover. */
export const artefacts = {
  testToken: artefact(testTokenArtefact),
  testNft: artefact(testNftArtefact),
  testMultiToken: artefact(testMultiTokenArtefact),
  smartAccount: artefact(smartAccountArtefact),
  smartAccountFactory: artefact(smartAccountFactoryArtefact),
  entryPoint: artefact(entryPointArtefact),
  simpleAccountFactory: artefact(simpleAccountFactoryArtefact),
};

const repoRoot = path.resolve(import.meta.dirname, "../../..");

/** Hardhat's well-known development mnemonic: the same accounts and keys as `npx hardhat node` prints. */
const devMnemonic = "test test test test test test test test test test test junk";
const accountCount = 10;
const accountBalance = 10n ** 22n; // 10 000 ether each

interface DevAccount {
  address: Address;
  privateKey: Hex;
}

export interface EvmChain {
  rpcUrl: string;
  chainId: number;
  /** The chain for viem clients (its default RPC URL is rpcUrl). */
  chain: Chain;
  /** Funded with 10 000 ether each; accounts[0] deployed every contract and is the token minter. */
  accounts: DevAccount[];
  contracts: {
    /** TestToken "Test Token" (TST), 18 decimals. */
    erc20: Address;
    /** TestNft "Test NFT" (TNFT). */
    erc721: Address;
    erc1155: Address;
    /** An ERC-1271 SmartAccount owned by accounts[0] (deployed by smartAccountFactory, salt 0). */
    smartAccount: Address;
    /** Deploys SmartAccounts at counterfactual addresses, for ERC-6492 (see counterfactualAccount). */
    smartAccountFactory: Address;
    /** The ERC-4337 EntryPoint 0.8 (deployed here, so not at its canonical mainnet address). */
    entryPoint: Address;
    /** The SimpleAccountFactory 0.8 bound to entryPoint. */
    simpleAccountFactory: Address;
  };
  publicClient: PublicClient;
  /** A client that signs locally with the account's key (accounts[0] unless given). */
  walletClient(account?: DevAccount): WalletClient<HttpTransport, Chain, PrivateKeyAccount>;
  /** Sends ether (from accounts[0] unless given) and returns the mined receipt. */
  transferNative(to: Address, value: bigint, from?: DevAccount): Promise<TransactionReceipt>;
  mintErc20(to: Address, amount: bigint, token?: Address): Promise<TransactionReceipt>;
  mintErc721(to: Address, tokenId: bigint): Promise<TransactionReceipt>;
  mintErc1155(to: Address, id: bigint, amount: bigint): Promise<TransactionReceipt>;
  /** Deploys another TestToken (minted by accounts[0]), e.g. a 6-decimal stablecoin look-alike. */
  deployErc20(name: string, symbol: string, decimals: number): Promise<Address>;
  /**
   * A SmartAccount of `owner` that is not deployed: its address and the factory call that would deploy it,
   * the parts of an ERC-6492 signature (viem's serializeErc6492Signature({ address: factory, data:
   * factoryData, signature })).
   */
  counterfactualAccount(owner: Address, salt: Hex): Promise<{ address: Address; factory: Address; factoryData: Hex }>;
  /** Stops the server and frees its port. */
  close(): Promise<void>;
}

function devAccounts(): DevAccount[] {
  return Array.from({ length: accountCount }, (_, addressIndex) => {
    const account = mnemonicToAccount(devMnemonic, { addressIndex });
    return { address: account.address, privateKey: toHex(account.getHdKey().privateKey!) };
  });
}

/** Starts the chain on 127.0.0.1 (an ephemeral port unless given; chain id 31337 unless given). */
export async function startEvmChain(opts: { port?: number; chainId?: number } = {}): Promise<EvmChain> {
  const chainId = opts.chainId ?? 31337;
  const accounts = devAccounts();
  const network = {
    type: "edr-simulated",
    chainId,
    accounts: accounts.map((a) => ({ privateKey: a.privateKey, balance: accountBalance.toString() })),
  } as const;
  // The repository as the project root rather than the caller's working directory, which may have no
  // package.json (Hardhat looks for one).
  const hre = await createHardhatRuntimeEnvironment({ networks: { local: network } }, {}, repoRoot);
  const server = await hre.network.createServer({ network: "local" }, "127.0.0.1", opts.port ?? 0);
  const { port } = await server.listen();
  const rpcUrl = `http://127.0.0.1:${port}`;

  let closed: Promise<void> | undefined;
  const close = () => (closed ??= server.close());
  try {
    const chain = defineChain({
      id: chainId,
      name: "Local EVM (Hardhat)",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [rpcUrl] } },
    });
    // Blocks are mined on each transaction: poll often rather than viem's default of seconds.
    const transport = http(rpcUrl);
    const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 }) as PublicClient;
    const walletClient = (account: DevAccount = accounts[0]) =>
      createWalletClient({ account: privateKeyToAccount(account.privateKey), chain, transport, pollingInterval: 50 });

    /**
     * The receipt of a sent transaction: with automine the node answers a send once its block is mined, so
     * the receipt is there without polling. One that reverted throws, so a helper never half-succeeds.
     */
    const mined = async (hash: Hex) => {
      const receipt = await publicClient.getTransactionReceipt({ hash });
      if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
      return receipt;
    };
    const deploy = async (a: Artefact, args: unknown[]): Promise<Address> => {
      const receipt = await mined(await walletClient().deployContract({ abi: a.abi, bytecode: a.bytecode, args }));
      return getAddress(receipt.contractAddress!);
    };
    const write = async (address: Address, a: Artefact, functionName: string, args: unknown[]) =>
      mined(await walletClient().writeContract({ address, abi: a.abi, functionName, args }));

    const erc20 = await deploy(artefacts.testToken, ["Test Token", "TST", 18]);
    const erc721 = await deploy(artefacts.testNft, ["Test NFT", "TNFT"]);
    const erc1155 = await deploy(artefacts.testMultiToken, ["https://tokens.example.test/{id}.json"]);
    const smartAccountFactory = await deploy(artefacts.smartAccountFactory, []);
    const zeroSalt = toHex(0, { size: 32 });
    await write(smartAccountFactory, artefacts.smartAccountFactory, "createAccount", [accounts[0].address, zeroSalt]);
    const accountAddress = (owner: Address, salt: Hex) =>
      publicClient.readContract({ address: smartAccountFactory, abi: artefacts.smartAccountFactory.abi, functionName: "getAddress", args: [owner, salt] }) as Promise<Address>;
    const smartAccount = await accountAddress(accounts[0].address, zeroSalt);
    const entryPoint = await deploy(artefacts.entryPoint, []);
    const simpleAccountFactory = await deploy(artefacts.simpleAccountFactory, [entryPoint]);

    return {
      rpcUrl,
      chainId,
      chain,
      accounts,
      contracts: { erc20, erc721, erc1155, smartAccount, smartAccountFactory, entryPoint, simpleAccountFactory },
      publicClient,
      walletClient,
      transferNative: async (to, value, from = accounts[0]) =>
        mined(await walletClient(from).sendTransaction({ to, value })),
      mintErc20: (to, amount, token = erc20) => write(token, artefacts.testToken, "mint", [to, amount]),
      mintErc721: (to, tokenId) => write(erc721, artefacts.testNft, "mint", [to, tokenId]),
      mintErc1155: (to, id, amount) => write(erc1155, artefacts.testMultiToken, "mint", [to, id, amount]),
      deployErc20: (name, symbol, decimals) => deploy(artefacts.testToken, [name, symbol, decimals]),
      counterfactualAccount: async (owner, salt) => ({
        address: await accountAddress(owner, salt),
        factory: smartAccountFactory,
        factoryData: encodeFunctionData({ abi: artefacts.smartAccountFactory.abi, functionName: "createAccount", args: [owner, salt] }),
      }),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
