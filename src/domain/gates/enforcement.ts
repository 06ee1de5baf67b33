import type { EnabledGate } from "../../db/repositories/sign-in.js";
import type { GateRuleData } from "../../db/repositories/gates.js";
import { listUserWallets } from "../../db/repositories/wallets.js";
import { DomainError, unprocessable } from "../../errors.js";
import { resolveNetwork } from "../chains/endpoints.js";
import { notConfigured } from "../chains/errors.js";
import type { HoldingQuery } from "../chains/evm-accounts.js";
import type { ChainEndpoint } from "../chains/nodes.js";
import type { Deps } from "../deps.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { chainAliases, chainFamilyOf } from "../wallets/addresses.js";

/**
 * Token gates at sign-in. A gate is satisfied when each of its rules is met by one of the wallets the sign-in
 * vouches for: the wallet that signed in (a wallet sign-in), and, for a user already known, every wallet
 * linked to them (a user may hold the collection in a cold wallet and sign in with another). A sign-in of a
 * new user by e-mail, phone, OAuth... vouches for no wallet, so it satisfies no gate.
 *
 * Holdings are read from the rule's chain at every sign-in, never cached: a holding given away stops letting
 * its wallet in at once. A gate that cannot be read fails closed, whatever its outcome (a block gate must not
 * let a holder in because its node is down): 503 chain_unavailable (with Retry-After) when the node fails,
 * 422 not_configured when no node serves the rule's network, 422 gate_unreadable when the contract does not
 * answer as the rule's type says (not an ERC-20 for token, an nft rule without tokenId on an ERC-1155).
 */

/** Wallets read per sign-in at most (the first linked, the signing wallet always): each costs node calls. */
const MAX_WALLETS = 20;

interface Wallet {
  family: string;
  address: string;
}

/** Who a sign-in vouches for: the wallet it proved (if any) and the known user (if any). */
export interface GateSubject {
  proven: { chain: string; address: string } | null;
  userId: string | null;
}

/** The ids of the gates the subject satisfies (every gate is read; one that cannot be read throws). */
export async function satisfiedGates(
  deps: Pick<Deps, "db" | "store" | "config" | "chainNodes">,
  env: PublicEnvironment,
  gates: readonly EnabledGate[],
  subject: GateSubject,
): Promise<Set<string>> {
  const wallets = await walletsOf(deps, env.environmentId, subject);
  // One node lookup per chain, one read per chain and wallet, shared by every rule that needs it.
  const endpoints = new Map<string, Promise<ChainEndpoint>>();
  const reads = new Map<string, Promise<(bigint | null)[]>>();
  const once = <T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>) => {
    let p = cache.get(key);
    if (!p) cache.set(key, (p = make()));
    return p;
  };
  const holdings = (gate: EnabledGate, rule: GateRuleData, wallet: Wallet) =>
    once(reads, `${rule.chain}|${wallet.address}`, async () => {
      const endpoint = await once(endpoints, rule.chain, () => endpointOf(deps, env, gate, rule));
      return readHoldings(deps, endpoint, rule.chain, wallet.address, gates);
    }).then((all) => all[queryIndex(gates, rule.chain, queryOf(rule))]);
  const satisfied = new Set<string>();
  await Promise.all(
    gates.map(async (gate) => {
      const met = await Promise.all(
        gate.rules.map(async (rule, i) => {
          const family = chainFamilyOf(rule.chain);
          const candidates = wallets.filter((w) => w.family === family);
          const amounts = await Promise.all(candidates.map((w) => holdings(gate, rule, w)));
          if (amounts.some((a) => a === null)) throw unreadable(gate, i);
          return amounts.some((a) => a! >= BigInt(rule.filter.amount || "1"));
        }),
      );
      if (met.length > 0 && met.every(Boolean)) satisfied.add(gate.id);
    }),
  );
  return satisfied;
}

async function walletsOf(deps: Pick<Deps, "db">, environmentId: string, subject: GateSubject): Promise<Wallet[]> {
  const all: Wallet[] = [];
  const add = (chain: string, address: string) => {
    const family = chainAliases(chain).includes("EVM") ? "EVM" : chain;
    if (!all.some((w) => w.family === family && w.address.toLowerCase() === address.toLowerCase())) all.push({ family, address });
  };
  if (subject.proven) add(subject.proven.chain, subject.proven.address);
  if (subject.userId) for (const w of await listUserWallets(deps.db, environmentId, subject.userId)) add(w.chain, w.address);
  return all.slice(0, MAX_WALLETS);
}

/** What a rule reads (on Solana, the mint of its contract address; a token id there is unreadable). */
function queryOf(rule: GateRuleData): HoldingQuery {
  const contract = rule.address.contractAddress;
  if (rule.type !== "nft") return { kind: "erc20", contract };
  return rule.filter.tokenId ? { kind: "nftToken", contract, tokenId: BigInt(rule.filter.tokenId) } : { kind: "erc721", contract };
}

const queryKey = (q: HoldingQuery) => `${q.kind}|${q.contract}|${q.kind === "nftToken" ? q.tokenId : ""}`;

/** Every distinct query of the gates' rules on one chain, in a fixed order: one multicall per wallet and chain. */
function queriesOn(gates: readonly EnabledGate[], chain: string): HoldingQuery[] {
  const seen = new Map<string, HoldingQuery>();
  for (const g of gates) for (const r of g.rules) if (r.chain === chain) seen.set(queryKey(queryOf(r)), queryOf(r));
  return [...seen.values()];
}

const queryIndex = (gates: readonly EnabledGate[], chain: string, q: HoldingQuery) => queriesOn(gates, chain).findIndex((x) => queryKey(x) === queryKey(q));

const familyOf = (chain: string) => (chain.startsWith("solana:") ? "SOL" : "EVM");

/** The node serving the rule's network; an error names the gate, so that the operator knows which one cannot be judged. */
async function endpointOf(deps: Pick<Deps, "db" | "store" | "config" | "chainNodes">, env: PublicEnvironment, gate: EnabledGate, rule: GateRuleData) {
  try {
    // A Solana cluster Sigil has no id for (stored as 0) has no node either.
    if (!rule.address.networkId) throw notConfigured(`no node is configured for ${rule.chain}`, { chain: rule.chain });
    return (await resolveNetwork(deps, env, familyOf(rule.chain), rule.address.networkId)).endpoint;
  } catch (err) {
    if (err instanceof DomainError && err.kind !== "unavailable")
      throw new DomainError(err.kind, err.code, `gate ${gate.id}: ${err.message}`, { ...err.payload, gateId: gate.id });
    throw err;
  }
}

/** The wallet's holding of every query of the gates on `chain`, from that chain's node. */
async function readHoldings(
  deps: Pick<Deps, "chainNodes">,
  endpoint: ChainEndpoint,
  chain: string,
  owner: string,
  gates: readonly EnabledGate[],
): Promise<(bigint | null)[]> {
  const queries = queriesOn(gates, chain);
  if (familyOf(chain) === "EVM") return deps.chainNodes.evmAccounts(endpoint).holdings(owner, queries);
  // Solana: a token's (or an NFT's) mint held by the owner's token accounts; a token id means nothing there.
  const held = await deps.chainNodes.solana(endpoint).splHoldings(owner);
  return queries.map((q) => (q.kind === "nftToken" ? null : held.filter((h) => h.mint === q.contract).reduce((sum, h) => sum + h.amount, 0n)));
}

const unreadable = (gate: EnabledGate, rule: number) =>
  unprocessable("gate_unreadable", `gate ${gate.id}: rule ${rule}'s contract does not answer as its type says, so the gate cannot be judged`, {
    gateId: gate.id,
    rule,
  });
