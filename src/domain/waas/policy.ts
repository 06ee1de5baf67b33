import { randomUUID } from "node:crypto";
import { base58 } from "@scure/base";
import { DomainError, badRequest, notFound } from "../../errors.js";
import type { Queryable } from "../../db/db.js";
import * as repo from "../../db/repositories/waas.js";
import type { WaasPolicyRuleRecord } from "../../db/repositories/waas.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { isSolanaNetworkId } from "../chains/solana-clusters.js";
import { canonicalEvmAddress } from "../wallets/addresses.js";
import { fromClientChain } from "./chain-names.js";

/**
 * The signing policy of an environment's WaaS wallets: one document of rules per environment, each rule
 * named by a ruleId the service generates. The policy exists while it has rules: adding the first creates
 * it, deleting the last removes it.
 *
 * Evaluation: a rule applies to a request on its chain whose method it names (no methods: all) and, when
 * it names chainIds, that is bound to one of them. A request is bound to the chain its bytes name (an EVM
 * transaction's EIP-155 chain id, typed data's domain chainId, an EIP-7702 authorization's chain id) or,
 * on Solana, whose bytes name no cluster, to the cluster the request names; a request bound to none (a
 * message, an authorization for chain 0) is valid on every chain, so it is within a deny rule's chains and
 * outside an allow rule's. Its addresses (allowlisted recipients) and maxPerCall (in the chain's native
 * unit) are conditions on what a request moves or authorises. A request that moves nothing (a message) is not held to them. A request that
 * does (a transaction, a Permit) states every address it pays or authorises and its native value, and says
 * when either cannot be established (a call the service does not decode, tokens whose amount is not in the
 * native unit):
 * - an allow rule with addresses matches only when every address of the request is listed and none is
 *   unknown; an allow rule with maxPerCall only when the native value is known and within it;
 * - a deny rule with addresses matches when one address of the request is listed or one is unknown; a
 *   deny rule with maxPerCall when the value is above it or unknown.
 * So what cannot be judged is never cleared by a condition: it passes only an allow rule that names
 * neither addresses nor a limit. A matching deny rule refuses; when the policy has any allow rule, one of
 * them must match; a policy with only deny rules allows the rest, and no policy allows everything.
 */

/** A rule as a request gives it, before validation. */
export interface PolicyRuleInput {
  /** Names the rule to change (updates); "" otherwise. */
  ruleId: string;
  name: string;
  /** allow or deny; "" when the request gave none. */
  ruleType: string;
  /** Every chain the request named for the rule (EVM, SVM or SOL); a rule takes exactly one. */
  chains: string[];
  /** The chain ids it named (the client's chainId and chainIds), unchecked; none: every chain of the family. */
  chainIds?: number[];
  addresses: string[];
  /** Decimal string; "" for no limit. */
  maxPerCall: string;
  methods: string[];
  /** Conditions the request gave that the service cannot enforce, by their JSON names. */
  unsupported: string[];
}

export interface SigningRequest {
  chain: string;
  /**
   * The chain id the request is bound to (EVM chain id; Solana: the cluster's network id, 101-103). Absent:
   * bound to none, valid on every chain (a message, an EIP-7702 authorization for chain 0).
   */
  chainId?: number;
  method: "signMessage" | "signTransaction" | "signTypedData";
  /**
   * Every address the request pays or authorises: native recipients, the contract a transaction calls, a
   * token transfer's recipient, an approval's spender. Absent for a request that moves nothing (a message).
   */
  recipients?: string[];
  /** Some address it pays or authorises cannot be established (an undecoded call, a lookup-table account). */
  unknownRecipients?: boolean;
  /** Native value it moves (fees it sets included), decimal string in the chain's native unit. */
  value?: string;
  /** It moves or authorises value that is not established in the native unit (tokens, an undecoded call). */
  unknownValue?: boolean;
}

/** Most rules one policy holds. */
export const MAX_POLICY_RULES = 100;

const unique = <T>(xs: T[]) => [...new Set(xs)];

function canonicalAddress(address: string, chain: "EVM" | "SOL"): string | null {
  if (chain === "EVM") return canonicalEvmAddress(address);
  try {
    return base58.decode(address).length === 32 ? address : null;
  } catch {
    return null; // not base58
  }
}

/**
 * Checks one rule beyond what the proto declares (a type, exactly one chain, address shapes of that chain,
 * nothing the service cannot enforce) and normalises it. `field` is the rule's JSON path, for error payloads.
 */
function validateRule(r: PolicyRuleInput, field: string, ruleId: string): WaasPolicyRuleRecord {
  if (r.name.trim() === "") throw badRequest("invalid_rule_name", "rule names must not be blank", { field: `${field}.name` });
  if (r.unsupported.length)
    throw badRequest("unsupported_rule_condition", `the service cannot enforce ${r.unsupported.join(", ")}: leave them out`, {
      field: `${field}.${r.unsupported[0]}`,
    });
  if (r.ruleType !== "allow" && r.ruleType !== "deny")
    throw badRequest("rule_type_required", "ruleType must be allow or deny", { field: `${field}.ruleType` });
  const chains = unique(r.chains.map(fromClientChain));
  if (chains.length !== 1) throw badRequest("invalid_rule_chain", "a rule applies to exactly one chain: EVM or SVM", { field: `${field}.chain` });
  const chain = chains[0];
  if (chain !== "EVM" && chain !== "SOL") throw badRequest("invalid_rule_chain", `chain ${chain} is not supported`, { field: `${field}.chain` });
  const chainIds = unique(r.chainIds ?? []);
  chainIds.forEach((id, j) => {
    if (chain === "EVM" ? !Number.isSafeInteger(id) || id <= 0 : !isSolanaNetworkId(id))
      throw badRequest("invalid_chain_id", chain === "EVM" ? `${id} is not an EVM chain id (a positive integer)` : `${id} is not a Solana cluster's network id (101, 102 or 103)`, {
        field: `${field}.chainIds[${j}]`,
      });
  });
  const addresses = unique(
    r.addresses.map((a, j) => {
      const c = canonicalAddress(a.trim(), chain);
      if (!c) throw badRequest("invalid_address", `${a} is not an address of ${chain}`, { field: `${field}.addresses[${j}]` });
      return c;
    }),
  );
  return {
    ruleId,
    name: r.name.trim(),
    ruleType: r.ruleType,
    chain,
    chainIds,
    addresses,
    maxPerCall: r.maxPerCall === "" ? null : r.maxPerCall,
    methods: unique(r.methods),
  };
}

/** Validates new rules (each gets a fresh ruleId). `list` is the request's field name, for error payloads. */
export function validateRules(rules: PolicyRuleInput[], list = "rules"): WaasPolicyRuleRecord[] {
  return rules.map((r, i) => validateRule(r, `${list}[${i}]`, randomUUID()));
}

/** The rules a policy would hold: at least one, at most MAX_POLICY_RULES, names unique (ignoring case). */
function checkPolicy(rules: WaasPolicyRuleRecord[], list: string): void {
  if (rules.length > MAX_POLICY_RULES)
    throw badRequest("too_many_rules", `a policy holds at most ${MAX_POLICY_RULES} rules`, { field: list });
  const names = new Set<string>();
  for (const r of rules) {
    const key = r.name.toLowerCase();
    if (names.has(key)) throw badRequest("duplicate_rule_name", `two rules are named ${r.name}`, { field: list });
    names.add(key);
  }
}

function requireRules(rules: unknown[], list: string): void {
  if (rules.length === 0) throw badRequest("rules_required", `${list} must name at least one rule`, { field: list });
}

/** Compares non-negative decimal strings ("12", "0.5") exactly. */
export function compareDecimal(a: string, b: string): number {
  const scale = (s: string) => {
    const [int, frac = ""] = s.split(".");
    return BigInt(int + frac.padEnd(36, "0").slice(0, 36));
  };
  const x = scale(a);
  const y = scale(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function sameAddress(a: string, b: string) {
  return a.startsWith("0x") ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/** Whether the request's addresses meet the rule's list (see the module comment for the two rule types). */
function addressesMatch(rule: WaasPolicyRuleRecord, req: SigningRequest): boolean {
  if (!rule.addresses.length || req.recipients === undefined) return true;
  const listed = (a: string) => rule.addresses.some((x) => sameAddress(x, a));
  return rule.ruleType === "allow" ? !req.unknownRecipients && req.recipients.every(listed) : !!req.unknownRecipients || req.recipients.some(listed);
}

/** Whether the request's value meets the rule's maxPerCall: an allow rule permits up to it, a deny rule refuses above it. */
function valueMatches(rule: WaasPolicyRuleRecord, req: SigningRequest): boolean {
  if (rule.maxPerCall === null || req.value === undefined) return true;
  const over = !!req.unknownValue || compareDecimal(req.value, rule.maxPerCall) > 0;
  return rule.ruleType === "allow" ? !over : over;
}

/**
 * Whether the request is bound to one of the rule's chains. One bound to none is valid on all of them, so
 * it is within a deny rule's chains, never within an allow rule's (what cannot be judged is not cleared).
 */
function chainIdMatches(rule: WaasPolicyRuleRecord, req: SigningRequest): boolean {
  if (!rule.chainIds.length) return true;
  if (req.chainId === undefined) return rule.ruleType === "deny";
  return rule.chainIds.includes(req.chainId);
}

function matches(rule: WaasPolicyRuleRecord, req: SigningRequest): boolean {
  if (rule.chain !== req.chain || !chainIdMatches(rule, req)) return false;
  if (rule.methods.length && !rule.methods.includes(req.method)) return false;
  return addressesMatch(rule, req) && valueMatches(rule, req);
}

/**
 * A request the policy refused: 403 policy_denied naming the rule that denied it (none when no allow rule
 * matched). One error for every signing path (delegated access, the SDK's threshold wallets).
 */
export function policyDenied(verdict: { rule?: string; ruleId?: string }): DomainError {
  return new DomainError(
    "forbidden",
    "policy_denied",
    verdict.rule ? `the WaaS policy rule ${verdict.rule} denies this request` : "no rule of the WaaS policy allows this request",
    verdict.rule ? { rule: verdict.rule, ruleId: verdict.ruleId } : undefined,
  );
}

/** The policy's verdict on a request, naming the deciding rule when one decided. */
export function evaluatePolicy(
  rules: WaasPolicyRuleRecord[] | null,
  req: SigningRequest,
): { allowed: boolean; rule?: string; ruleId?: string } {
  if (!rules) return { allowed: true };
  const deny = rules.find((r) => r.ruleType === "deny" && matches(r, req));
  if (deny) return { allowed: false, rule: deny.name, ruleId: deny.ruleId };
  const allows = rules.filter((r) => r.ruleType === "allow");
  if (allows.length === 0) return { allowed: true };
  const allow = allows.find((r) => matches(r, req));
  return allow ? { allowed: true, rule: allow.name, ruleId: allow.ruleId } : { allowed: false };
}

export async function getPolicy(deps: Pick<Deps, "db">, access: EnvironmentAccess) {
  const p = await repo.findWaasPolicy(deps.db, access.environmentId);
  if (!p) throw notFound("waas policy");
  return p;
}

type RecordFn = Parameters<Parameters<typeof audited>[2]>[1];

/** Writes the new rules of a locked policy and records the change (before: its rules until now). */
async function save(t: Queryable, record: RecordFn, before: repo.WaasPolicyRecord, rules: WaasPolicyRuleRecord[], created: boolean) {
  const updated = (await repo.updateWaasPolicy(t, before.environmentId, rules))!;
  await record(
    created
      ? { action: "waas_policy.created", resourceType: "waas_policy", resourceId: updated.id, after: { rules: updated.rules } }
      : {
          action: "waas_policy.updated",
          resourceType: "waas_policy",
          resourceId: updated.id,
          before: { rules: before.rules },
          after: { rules: updated.rules },
        },
  );
  return updated;
}

/** Adds rules, creating the policy when the environment has none; tells which it did. */
export async function addRules(deps: Pick<Deps, "db">, access: EnvironmentAccess, inputs: PolicyRuleInput[], list: string) {
  requireRules(inputs, list);
  const added = validateRules(inputs, list);
  return audited(deps, access, async (t, record) => {
    // Create-if-missing first, then lock: concurrent adds queue on the row instead of racing to insert it.
    const created = (await repo.insertWaasPolicy(t, access.environmentId)) !== null;
    const before = (await repo.findWaasPolicyForUpdate(t, access.environmentId))!;
    const rules = [...before.rules, ...added];
    checkPolicy(rules, list);
    return { policy: await save(t, record, before, rules, created), created };
  });
}

async function lockPolicy(t: Queryable, environmentId: string) {
  const p = await repo.findWaasPolicyForUpdate(t, environmentId);
  if (!p) throw notFound("waas policy");
  return p;
}

/** Replaces every rule (Sigil's earlier PUT); the new rules get new ruleIds. */
export async function replaceRules(deps: Pick<Deps, "db">, access: EnvironmentAccess, inputs: PolicyRuleInput[], list: string) {
  requireRules(inputs, list);
  const rules = validateRules(inputs, list);
  checkPolicy(rules, list);
  return audited(deps, access, async (t, record) => save(t, record, await lockPolicy(t, access.environmentId), rules, false));
}

/** Each input replaces the rule with its ruleId (which it keeps); 404 when one names no rule of the policy. */
export async function updateRules(deps: Pick<Deps, "db">, access: EnvironmentAccess, inputs: PolicyRuleInput[], list: string) {
  requireRules(inputs, list);
  const changes = inputs.map((r, i) => {
    if (r.ruleId === "") throw badRequest("rule_id_required", "each rule to update needs its ruleId", { field: `${list}[${i}].ruleId` });
    return validateRule(r, `${list}[${i}]`, r.ruleId);
  });
  const ids = changes.map((c) => c.ruleId);
  if (new Set(ids).size !== ids.length) throw badRequest("duplicate_rule_id", "a ruleId appears twice", { field: list });
  return audited(deps, access, async (t, record) => {
    const before = await lockPolicy(t, access.environmentId);
    for (const id of ids) if (!before.rules.some((r) => r.ruleId === id)) throw notFound(`waas policy rule ${id}`);
    const rules = before.rules.map((r) => changes.find((c) => c.ruleId === r.ruleId) ?? r);
    checkPolicy(rules, list);
    return save(t, record, before, rules, false);
  });
}

/**
 * Removes the rules with these ids; 404 when one names no rule of the policy. Removing the last rule
 * removes the policy; the answer is then the policy as it ended, without rules.
 */
export async function deleteRules(deps: Pick<Deps, "db">, access: EnvironmentAccess, ruleIds: string[]) {
  requireRules(ruleIds, "ruleIdsToDelete");
  return audited(deps, access, async (t, record) => {
    const before = await lockPolicy(t, access.environmentId);
    for (const id of ruleIds) if (!before.rules.some((r) => r.ruleId === id)) throw notFound(`waas policy rule ${id}`);
    const rules = before.rules.filter((r) => !ruleIds.includes(r.ruleId));
    if (rules.length > 0) return { policy: await save(t, record, before, rules, false), deleted: false };
    await repo.deleteWaasPolicy(t, access.environmentId);
    await record({ action: "waas_policy.deleted", resourceType: "waas_policy", resourceId: before.id, before: { rules: before.rules } });
    return { policy: { ...before, rules: [], updatedAt: new Date() }, deleted: true };
  });
}
