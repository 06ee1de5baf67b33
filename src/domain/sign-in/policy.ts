import type { Queryable } from "../../db/db.js";
import * as projects from "../../db/repositories/projects.js";
import * as signIn from "../../db/repositories/sign-in.js";
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
 */
export async function checkSignInPolicy(q: Queryable, environmentId: string, c: ProvenCredential, opts: { newUser: boolean }): Promise<string> {
  await checkMethodEnabled(q, environmentId, c);
  // A passkey names no identifier: the lists judge its user by the wallets, e-mails and phones they hold.
  const identifiers = c.kind === "passkey" ? await signIn.userAllowlistIdentifiers(q, environmentId, c.userId) : allowlistIdentifiers(c);
  const lists = await signIn.enabledAllowlistMatches(q, environmentId, identifiers);
  if (lists.some((l) => l.outcome === "block" && l.matched)) throw denied("blocked_by_allowlist", "this identifier may not sign in to this environment");
  const access = lists.filter((l) => l.outcome === "siteAccess");
  if (access.length > 0 && !access.some((l) => l.matched))
    throw denied("not_on_allowlist", "this environment only lets the identifiers on its allowlist sign in");
  if (opts.newUser && c.kind === "email") await checkEmailDomain(q, environmentId, c.email);
  const scopes = new Set([BASE_SCOPE]);
  for (const l of lists) if (l.outcome === "scope" && l.matched && l.scope) for (const s of l.scope.split(/\s+/).filter(Boolean)) scopes.add(s);
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
