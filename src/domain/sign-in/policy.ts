import type { Queryable } from "../../db/db.js";
import * as projects from "../../db/repositories/projects.js";
import * as signIn from "../../db/repositories/sign-in.js";
import type { EnabledGate } from "../../db/repositories/sign-in.js";
import { DomainError } from "../../errors.js";
import { effectiveSettings } from "../environments/settings.js";
import { BASE_SCOPE } from "../sessions/tokens.js";
import { allowlistIdentifiers, type ProvenCredential } from "./credentials.js";

const denied = (code: string, message: string) => new DomainError("forbidden", code, message);

/**
 * What the environment's settings allow for this credential, checked before any user is created or signed
 * in: the sign-in method must be on, the allowlists decide (their outcome: siteAccess = only listed
 * identifiers, block = listed ones never, scope = listed ones get the scope), and a new user's e-mail must be
 * of an allowed domain when the environment names any. Returns the session's scope.
 *
 * Token gates, when the caller can judge them (`judgeGates`: a sign-in; a link changes no session), decide
 * with the same outcomes on what the user holds (src/domain/gates/enforcement.ts): a holder of a block gate
 * is refused (403 blocked_by_gate), a scope gate adds its scope, and siteAccess admits the identifiers of a
 * siteAccess allowlist and the holders of a siteAccess gate alike (403 gate_not_satisfied when gates were
 * among them). Gates are judged after everything the database decides, as they cost node calls.
 */
export async function checkSignInPolicy(
  q: Queryable,
  environmentId: string,
  c: ProvenCredential,
  opts: { newUser: boolean; judgeGates?: (gates: EnabledGate[]) => Promise<Set<string>> },
): Promise<string> {
  await checkMethodEnabled(q, environmentId, c);
  // A passkey names no identifier: the lists judge its user by the wallets, e-mails and phones they hold.
  const identifiers = c.kind === "passkey" ? await signIn.userAllowlistIdentifiers(q, environmentId, c.userId) : allowlistIdentifiers(c);
  const { lists, gates: enabledGates } = await signIn.enabledAccessRules(q, environmentId, identifiers);
  if (lists.some((l) => l.outcome === "block" && l.matched)) throw denied("blocked_by_allowlist", "this identifier may not sign in to this environment");
  const gates = opts.judgeGates ? enabledGates : [];
  const access = lists.filter((l) => l.outcome === "siteAccess");
  const accessGates = gates.filter((g) => g.outcome === "siteAccess");
  if (access.length > 0 && accessGates.length === 0 && !access.some((l) => l.matched))
    throw denied("not_on_allowlist", "this environment only lets the identifiers on its allowlist sign in");
  if (opts.newUser && c.kind === "email") await checkEmailDomain(q, environmentId, c.email);
  const held = gates.length > 0 ? await opts.judgeGates!(gates) : new Set<string>();
  if (gates.some((g) => g.outcome === "block" && held.has(g.id))) throw denied("blocked_by_gate", "holders of a token this sign-in's wallets hold may not sign in to this environment");
  if (accessGates.length > 0 && !access.some((l) => l.matched) && !accessGates.some((g) => held.has(g.id)))
    throw denied("gate_not_satisfied", "this environment only lets holders of its gates' tokens (or the identifiers on its allowlist) sign in");
  const scopes = new Set([BASE_SCOPE]);
  const granted = [...lists.filter((l) => l.matched), ...gates.filter((g) => held.has(g.id))];
  for (const l of granted) if (l.outcome === "scope" && l.scope) for (const s of l.scope.split(/\s+/).filter(Boolean)) scopes.add(s);
  return [...scopes].join(" ");
}

/**
 * E-mail codes and wallets are on unless their provider was configured and disabled (a new environment
 * signs in with both); SMS needs an enabled `sms` provider (it holds the SMS gateway account).
 */
export async function checkMethodEnabled(q: Queryable, environmentId: string, c: ProvenCredential): Promise<void> {
  if (c.kind === "email") {
    const [codes, links] = await Promise.all([signIn.providerEnabled(q, environmentId, "emailOnly"), signIn.providerEnabled(q, environmentId, "magicLink")]);
    if (codes === false && links !== true) throw denied("sign_in_method_disabled", "e-mail sign-in is disabled in this environment");
  } else if (c.kind === "phone") {
    if ((await signIn.providerEnabled(q, environmentId, "sms")) !== true) throw denied("sign_in_method_disabled", "SMS sign-in is not enabled in this environment");
  }
}

async function checkEmailDomain(q: Queryable, environmentId: string, email: string): Promise<void> {
  const env = await projects.findEnvironmentRecord(q, environmentId);
  const domains = ((env && effectiveSettings(env.settings).security.allowedEmailDomains) ?? []) as string[];
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  if (domains.length > 0 && !domains.includes(domain))
    throw denied("email_domain_not_allowed", `e-mail addresses of ${domain} may not sign up to this environment`);
}
