import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endUserAccess } from "../../../src/domain/sessions/service.js";
import type { BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import { addRules, evaluatePolicy, validateRules, type PolicyRuleInput, type SigningRequest } from "../../../src/domain/waas/policy.js";
import { enforceSigningPolicy, prepareSignature } from "../../../src/domain/waas/sign-request.js";
import { DomainError } from "../../../src/errors.js";
import { startTestApp, type TestApp } from "../../support/app.js";

// The environment's stored WaaS policy judging what a threshold wallet is asked to sign (real Postgres):
// the requests come from prepareSignature, so the values are the ones a real sign request yields.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
}, 60_000);
afterAll(async () => {
  await app?.stop();
});

const RECIPIENT = "0x000000000000000000000000000000000000dEaD";
const OTHER = "0x000000000000000000000000000000000000bEEF";
const rule = (r: Partial<PolicyRuleInput> & Pick<PolicyRuleInput, "name" | "ruleType">): PolicyRuleInput => ({
  ruleId: "",
  chains: ["EVM"],
  addresses: [],
  maxPerCall: "",
  methods: [],
  unsupported: [],
  ...r,
});

async function environmentWith(rules: PolicyRuleInput[]): Promise<BootstrapResult> {
  const t = await app.bootstrap({ ownerEmail: `policy-${randomUUID()}@example.com` });
  const access = endUserAccess({ environmentId: t.environmentId, environmentName: "sandbox", projectId: t.projectId, organizationId: t.organizationId }, randomUUID(), "req-1");
  if (rules.length) await addRules(app, access, rules, "rules");
  return t;
}

/** The EVM transaction's requests: `value` in wei, as the client sends it. */
const evmTx = (to: string, wei: string) => prepareSignature("EVM", { message: "", context: { evmTransaction: { to, chainId: 1, value: wei, gasPrice: "1" } } }).requests;
const evmMessage = () => prepareSignature("EVM", { message: "hello" }).requests;

async function outcome(environmentId: string, requests: ReturnType<typeof evmTx>) {
  try {
    await enforceSigningPolicy(app, environmentId, requests);
    return "allowed";
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    return { kind: e.kind, code: e.code, message: e.message, payload: e.payload };
  }
}

describe("enforceSigningPolicy", () => {
  it("no policy allows everything", async () => {
    const t = await environmentWith([]);
    expect(await outcome(t.environmentId, evmTx(OTHER, "10000000000000000000000"))).toBe("allowed");
    expect(await outcome(t.environmentId, evmMessage())).toBe("allowed");
  });

  it("an allow rule with an address list and maxPerCall (in ether) allows within it, refuses the rest with 403 policy_denied", async () => {
    const t = await environmentWith([rule({ name: "to-dead", ruleType: "allow", addresses: [RECIPIENT], maxPerCall: "1.5", methods: ["signTransaction"] })]);
    expect(await outcome(t.environmentId, evmTx(RECIPIENT, "1500000000000000000"))).toBe("allowed");
    expect(await outcome(t.environmentId, evmTx(RECIPIENT.toLowerCase(), "1"))).toBe("allowed");
    // 1 wei over the limit.
    expect(await outcome(t.environmentId, evmTx(RECIPIENT, "1500000000000000001"))).toMatchObject({ kind: "forbidden", code: "policy_denied" });
    expect(await outcome(t.environmentId, evmTx(OTHER, "1"))).toMatchObject({ kind: "forbidden", code: "policy_denied", message: "no rule of the WaaS policy allows this request" });
    // The allow rule names signTransaction only: a message matches no allow rule.
    expect(await outcome(t.environmentId, evmMessage())).toMatchObject({ code: "policy_denied" });
  });

  it("a deny rule refuses what it matches and names itself; the rest is allowed", async () => {
    const t = await environmentWith([rule({ name: "no-beef", ruleType: "deny", addresses: [OTHER] })]);
    const denied = await outcome(t.environmentId, evmTx(OTHER, "0"));
    expect(denied).toMatchObject({ kind: "forbidden", code: "policy_denied", message: "the WaaS policy rule no-beef denies this request", payload: { rule: "no-beef" } });
    expect((denied as unknown as { payload: { ruleId: string } }).payload.ruleId).toMatch(/\S/);
    expect(await outcome(t.environmentId, evmTx(RECIPIENT, "5000000000000000000"))).toBe("allowed");
    // policy.ts holds only requests with a recipient to a rule's addresses: a message matches this rule too.
    expect(await outcome(t.environmentId, evmMessage())).toMatchObject({ code: "policy_denied", payload: { rule: "no-beef" } });
    const txOnly = await environmentWith([rule({ name: "no-beef-tx", ruleType: "deny", addresses: [OTHER], methods: ["signTransaction"] })]);
    expect(await outcome(txOnly.environmentId, evmMessage())).toBe("allowed");
    expect(await outcome(txOnly.environmentId, evmTx(OTHER, "0"))).toMatchObject({ code: "policy_denied", payload: { rule: "no-beef-tx" } });
  });

  it("a deny rule with maxPerCall refuses values above it only", async () => {
    const t = await environmentWith([rule({ name: "cap", ruleType: "deny", maxPerCall: "2", methods: ["signTransaction"] })]);
    expect(await outcome(t.environmentId, evmTx(OTHER, "2000000000000000000"))).toBe("allowed");
    expect(await outcome(t.environmentId, evmTx(OTHER, "2000000000000000001"))).toMatchObject({ code: "policy_denied", payload: { rule: "cap" } });
  });

  it("rules of another chain or another environment do not apply", async () => {
    const strict = await environmentWith([rule({ name: "deny-all-evm", ruleType: "deny" })]);
    const other = await environmentWith([rule({ name: "deny-sol", ruleType: "deny", chains: ["SOL"] })]);
    expect(await outcome(strict.environmentId, evmMessage())).toMatchObject({ code: "policy_denied" });
    expect(await outcome(other.environmentId, evmMessage())).toBe("allowed");
    expect(await outcome(other.environmentId, prepareSignature("SOL", { message: "hi" }).requests)).toMatchObject({ code: "policy_denied", payload: { rule: "deny-sol" } });
  });

  it("every request of a batch is judged: one refused refuses the whole", async () => {
    const t = await environmentWith([rule({ name: "no-beef", ruleType: "deny", addresses: [OTHER] })]);
    expect(await outcome(t.environmentId, [...evmTx(RECIPIENT, "1"), ...evmTx(OTHER, "1")])).toMatchObject({ code: "policy_denied" });
  });
});

describe("what cannot be judged is never cleared by a condition", () => {
  const judge = (r: PolicyRuleInput, req: SigningRequest) => evaluatePolicy(validateRules([r]), req).allowed;
  const tx = (extra: Partial<SigningRequest>): SigningRequest => ({ chain: "EVM", method: "signTransaction", recipients: [RECIPIENT], value: "0", ...extra });
  const listed = rule({ name: "listed", ruleType: "allow", addresses: [RECIPIENT] });
  const capped = rule({ name: "capped", ruleType: "allow", maxPerCall: "1" });
  const open = rule({ name: "open", ruleType: "allow" });

  it("an allow rule with addresses needs every recipient listed and none unknown", () => {
    expect(judge(listed, tx({}))).toBe(true);
    expect(judge(listed, tx({ recipients: [RECIPIENT, OTHER] }))).toBe(false);
    expect(judge(listed, tx({ unknownRecipients: true }))).toBe(false);
    // A transaction that pays nobody passes the list; a message is not held to it.
    expect(judge(listed, tx({ recipients: [] }))).toBe(true);
    expect(judge(listed, { chain: "EVM", method: "signMessage" })).toBe(true);
  });

  it("an allow rule with maxPerCall needs a known native value within it", () => {
    expect(judge(capped, tx({ value: "1" }))).toBe(true);
    expect(judge(capped, tx({ value: "1.000000000000000001" }))).toBe(false);
    expect(judge(capped, tx({ value: "0", unknownValue: true }))).toBe(false);
  });

  it("an allow rule without addresses or a limit allows what cannot be judged", () => {
    expect(judge(open, tx({ unknownRecipients: true, unknownValue: true }))).toBe(true);
  });

  it("a rule with chainIds covers the requests bound to those chains; one bound to none only by a deny rule", () => {
    const onBase = rule({ name: "on base", ruleType: "allow", chainIds: [8453] });
    const notMainnet = rule({ name: "not mainnet", ruleType: "deny", chainIds: [1] });
    expect(judge(onBase, tx({ chainId: 8453 }))).toBe(true);
    expect(judge(onBase, tx({ chainId: 1 }))).toBe(false);
    expect(judge(onBase, { chain: "EVM", method: "signMessage" })).toBe(false);
    expect(judge(notMainnet, tx({ chainId: 8453 }))).toBe(true);
    expect(judge(notMainnet, tx({ chainId: 1 }))).toBe(false);
    expect(judge(notMainnet, { chain: "EVM", method: "signMessage" })).toBe(false);
    // What the requests a client sends are bound to: a transaction's chain id, an authorization's unless 0.
    const bound = (context: Record<string, unknown>) => prepareSignature("EVM", { message: "", context: context as never }).requests[0]!.chainId;
    expect(bound({ evmTransaction: { to: RECIPIENT, chainId: 137, value: "1" } })).toBe(137);
    expect(bound({ eip7702Auth: { address: RECIPIENT, chainId: 0, nonce: 0 } })).toBeUndefined();
    expect(bound({ evmTypedData: { domain: { chainId: "0x2105" }, types: { M: [{ name: "a", type: "string" }] }, primaryType: "M", message: { a: "x" } } })).toBe(8453);
  });

  it("a deny rule with addresses or a limit refuses what cannot be judged", () => {
    const denyListed = rule({ name: "no-beef", ruleType: "deny", addresses: [OTHER] });
    expect(judge(denyListed, tx({}))).toBe(true);
    expect(judge(denyListed, tx({ recipients: [RECIPIENT, OTHER] }))).toBe(false);
    expect(judge(denyListed, tx({ unknownRecipients: true }))).toBe(false);
    const denyAbove = rule({ name: "cap", ruleType: "deny", maxPerCall: "2" });
    expect(judge(denyAbove, tx({ value: "2" }))).toBe(true);
    expect(judge(denyAbove, tx({ value: "0", unknownValue: true }))).toBe(false);
  });
});
