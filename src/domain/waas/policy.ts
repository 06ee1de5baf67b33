import { getAddress, isAddress } from "viem";
import { base58 } from "@scure/base";
import { badRequest, conflict, notFound } from "../../errors.js";
import * as repo from "../../db/repositories/waas.js";
import type { WaasPolicyRuleRecord } from "../../db/repositories/waas.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";

/**
 * The signing policy of an environment's WaaS wallets: one document of rules per environment.
 *
 * Evaluation: a rule applies to a request when its chains and methods include the request's (empty lists
 * mean all). Its addresses (allowlisted recipients) and maxValue are conditions on requests that carry a
 * recipient or a value (transactions); a request without one (a message) is not held to them. A matching
 * deny rule refuses; when the policy has any allow rule, one of them must match; a policy with only deny
 * rules allows the rest, and no policy allows everything.
 */

export interface PolicyRuleInput {
  name: string;
  type: string;
  chains: string[];
  addresses: string[];
  maxValue: string;
  methods: string[];
}

export interface SigningRequest {
  chain: string;
  method: "signMessage" | "signTransaction" | "signTypedData";
  /** Recipient of a transaction. */
  to?: string;
  /** Value of a transaction, decimal string in the chain's native unit. */
  value?: string;
}

const unique = <T>(xs: T[]) => [...new Set(xs)];

function canonicalAddress(address: string, chains: string[]): string | null {
  const evm = chains.length === 0 || chains.includes("EVM");
  const sol = chains.length === 0 || chains.includes("SOL");
  if (evm && isAddress(address, { strict: false })) return getAddress(address);
  if (sol) {
    try {
      if (base58.decode(address).length === 32) return address;
    } catch {
      // not base58
    }
  }
  return null;
}

/** Checks what the proto rules cannot (address shapes per chain, unique names) and normalises the rules. */
export function validateRules(rules: PolicyRuleInput[]): WaasPolicyRuleRecord[] {
  const names = new Set<string>();
  return rules.map((r, i) => {
    const key = r.name.trim().toLowerCase();
    if (key === "") throw badRequest("invalid_rule_name", "rule names must not be blank", { field: `rules[${i}].name` });
    if (names.has(key)) throw badRequest("duplicate_rule_name", `two rules are named ${r.name}`, { field: `rules[${i}].name` });
    names.add(key);
    const chains = unique(r.chains);
    const addresses = unique(
      r.addresses.map((a, j) => {
        const c = canonicalAddress(a.trim(), chains);
        if (!c)
          throw badRequest("invalid_address", `${a} is not an address of ${chains.length ? chains.join(" or ") : "a supported chain"}`, {
            field: `rules[${i}].addresses[${j}]`,
          });
        return c;
      }),
    );
    return {
      name: r.name.trim(),
      type: r.type as "allow" | "deny",
      chains,
      addresses,
      maxValue: r.maxValue === "" ? null : r.maxValue,
      methods: unique(r.methods),
    };
  });
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

function matches(rule: WaasPolicyRuleRecord, req: SigningRequest): boolean {
  if (rule.chains.length && !rule.chains.includes(req.chain)) return false;
  if (rule.methods.length && !rule.methods.includes(req.method)) return false;
  if (req.to !== undefined && rule.addresses.length && !rule.addresses.some((a) => sameAddress(a, req.to!))) return false;
  if (req.value !== undefined && rule.maxValue !== null) {
    const over = compareDecimal(req.value, rule.maxValue) > 0;
    // An allow rule permits values up to maxValue; a deny rule refuses values above it.
    if (rule.type === "allow" ? over : !over) return false;
  }
  return true;
}

/** The policy's verdict on a request, naming the deciding rule when one decided. */
export function evaluatePolicy(rules: WaasPolicyRuleRecord[] | null, req: SigningRequest): { allowed: boolean; rule?: string } {
  if (!rules) return { allowed: true };
  const deny = rules.find((r) => r.type === "deny" && matches(r, req));
  if (deny) return { allowed: false, rule: deny.name };
  const allows = rules.filter((r) => r.type === "allow");
  if (allows.length === 0) return { allowed: true };
  const allow = allows.find((r) => matches(r, req));
  return allow ? { allowed: true, rule: allow.name } : { allowed: false };
}

export async function getPolicy(deps: Pick<Deps, "db">, access: EnvironmentAccess) {
  const p = await repo.findWaasPolicy(deps.db, access.environmentId);
  if (!p) throw notFound("waas policy");
  return p;
}

const policyExists = () => conflict("waas_policy_already_exists", "this environment already has a WaaS policy: update it with PUT");

export async function createPolicy(deps: Pick<Deps, "db">, access: EnvironmentAccess, rules: PolicyRuleInput[]) {
  const valid = validateRules(rules);
  return audited(deps, access, async (t, record) => {
    let created: repo.WaasPolicyRecord | null;
    try {
      created = await repo.insertWaasPolicy(t, access.environmentId, valid);
    } catch (err) {
      if ((err as { code?: string }).code === "23505") throw policyExists();
      throw err;
    }
    if (!created) throw policyExists();
    await record({ action: "waas_policy.created", resourceType: "waas_policy", resourceId: created.id, after: { rules: created.rules } });
    return created;
  });
}

export async function updatePolicy(deps: Pick<Deps, "db">, access: EnvironmentAccess, rules: PolicyRuleInput[]) {
  const valid = validateRules(rules);
  return audited(deps, access, async (t, record) => {
    const before = await repo.findWaasPolicy(t, access.environmentId);
    if (!before) throw notFound("waas policy");
    const updated = (await repo.updateWaasPolicy(t, access.environmentId, valid))!;
    await record({
      action: "waas_policy.updated",
      resourceType: "waas_policy",
      resourceId: updated.id,
      before: { rules: before.rules },
      after: { rules: updated.rules },
    });
    return updated;
  });
}

export async function deletePolicy(deps: Pick<Deps, "db">, access: EnvironmentAccess) {
  await audited(deps, access, async (t, record) => {
    const deleted = await repo.deleteWaasPolicy(t, access.environmentId);
    if (!deleted) throw notFound("waas policy");
    await record({ action: "waas_policy.deleted", resourceType: "waas_policy", resourceId: deleted.id, before: { rules: deleted.rules } });
  });
}
