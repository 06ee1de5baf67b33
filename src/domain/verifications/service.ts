import * as testAccounts from "../../db/repositories/test-accounts.js";
import * as providers from "../../db/repositories/providers.js";
import type { UserAggregateRecord } from "../../db/repositories/user-aggregate.js";
import { DomainError, unprocessable } from "../../errors.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import type { ClientMeta, SessionTokens } from "../sessions/service.js";
import type { ProvenCredential } from "../sign-in/credentials.js";
import { linkCredential, signInWith, type SignInResult } from "../sign-in/pipeline.js";
import { checkMethodEnabled } from "../sign-in/policy.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { verifyTestAccountCode } from "../test-accounts/service.js";
import { CodeBook, type Channel, type Verification } from "./codes.js";
import { mailCode, smsAccount, smsCode } from "./delivery.js";
import { normalisePhone, type Phone, type PhoneInput } from "./phone.js";

/**
 * E-mail and SMS one-time codes (the operations of src/rpc/verifications): create and retry send a code,
 * sign-in and verify redeem it and hand the proven address or number to the one sign-in pipeline (sign in
 * or sign up; or add it to the signed-in user). Codes live in the store (./codes.ts).
 */

const codeBook = (deps: Pick<Deps, "store" | "config">) => new CodeBook(deps.store, deps.config.sealingKeys[0]!.key);

/** E-mail addresses compare case-insensitively: the lowercase address is the identity. */
const normaliseEmail = (email: string) => email.trim().toLowerCase();

/**
 * SIGIL_CODE_SENDS_PER_MINUTE codes (creations and retries together) per e-mail address or phone number
 * and environment, in the store so the bound holds across api processes: 429 with the seconds to wait.
 */
async function checkSendLimit(deps: Pick<Deps, "store" | "config">, environmentId: string, channel: Channel, identifier: string): Promise<void> {
  const limit = deps.config.verifications.sendsPerIdentifierPerMinute;
  if (limit === 0) return;
  const { count, resetInMs } = await deps.store.incrWindow(`verification-sends:${environmentId}:${channel}:${identifier}`, 60);
  if (count > limit) {
    const retryAfterSeconds = Math.max(1, Math.ceil(resetInMs / 1000));
    throw new DomainError("rate_limited", "rate_limited", `too many codes sent to this ${channel === "email" ? "e-mail address" : "phone number"}; retry in ${retryAfterSeconds} s`, {
      retryAfterSeconds,
    });
  }
}

async function isTestAccount(deps: Pick<Deps, "db">, environmentId: string, id: { email?: string; e164?: string }): Promise<boolean> {
  const a = await testAccounts.findTestAccount(deps.db, environmentId);
  if (!a) return false;
  return id.email !== undefined ? a.email?.toLowerCase() === id.email : a.phoneNumber === id.e164;
}

export async function createEmailVerification(deps: Deps, env: PublicEnvironment, rawEmail: string): Promise<{ verificationId: string; email: string }> {
  const email = normaliseEmail(rawEmail);
  await checkMethodEnabled(deps.db, env.environmentId, { kind: "email", email });
  await checkSendLimit(deps, env.environmentId, "email", email);
  const testAccount = await isTestAccount(deps, env.environmentId, { email });
  const book = codeBook(deps);
  const { id, code } = await book.open(env.environmentId, "email", email, testAccount);
  if (code) await mailCode(deps, env.environmentId, email, code).catch((err) => forget(book, env.environmentId, "email", id, err));
  return { verificationId: id, email };
}

export async function retryEmailVerification(deps: Deps, env: PublicEnvironment, verificationId: string, rawEmail: string): Promise<{ verificationId: string; email: string }> {
  const email = normaliseEmail(rawEmail);
  const book = codeBook(deps);
  const v = await book.find<string>(env.environmentId, "email", verificationId);
  if (v.identifier !== email) throw unprocessable("verification_identifier_mismatch", "this verification was started for another e-mail address");
  await checkSendLimit(deps, env.environmentId, "email", email);
  const code = await book.renew(env.environmentId, verificationId, v);
  if (code) await mailCode(deps, env.environmentId, email, code).catch((err) => forget(book, env.environmentId, "email", verificationId, err));
  return { verificationId, email };
}

export async function createSmsVerification(deps: Deps, env: PublicEnvironment, input: PhoneInput): Promise<{ verificationId: string; phone: Phone }> {
  const phone = normalisePhone(input);
  const account = await smsAccount(deps, env.environmentId);
  await checkCountryEnabled(deps, env.environmentId, phone);
  await checkSendLimit(deps, env.environmentId, "sms", phone.e164);
  const testAccount = await isTestAccount(deps, env.environmentId, { e164: phone.e164 });
  const book = codeBook(deps);
  const { id, code } = await book.open(env.environmentId, "sms", phone, testAccount);
  if (code) await smsCode(deps, account, env.environmentId, phone.e164, code).catch((err) => forget(book, env.environmentId, "sms", id, err));
  return { verificationId: id, phone };
}

export async function retrySmsVerification(deps: Deps, env: PublicEnvironment, verificationId: string, input: PhoneInput): Promise<{ verificationId: string; phone: Phone }> {
  const phone = normalisePhone(input);
  const book = codeBook(deps);
  const v = await book.find<Phone>(env.environmentId, "sms", verificationId);
  if (v.identifier.e164 !== phone.e164) throw unprocessable("verification_identifier_mismatch", "this verification was started for another phone number");
  const account = await smsAccount(deps, env.environmentId);
  await checkSendLimit(deps, env.environmentId, "sms", phone.e164);
  const code = await book.renew(env.environmentId, verificationId, v);
  if (code) await smsCode(deps, account, env.environmentId, phone.e164, code).catch((err) => forget(book, env.environmentId, "sms", verificationId, err));
  return { verificationId, phone: v.identifier };
}

/** The code was not sent: no usable verification is left behind, the caller gets the delivery error. */
async function forget(book: CodeBook, environmentId: string, channel: Channel, id: string, err: unknown): Promise<never> {
  await book.discard(environmentId, channel, id);
  throw err;
}

/** When the sms provider lists countries, only numbers of those countries receive codes. */
async function checkCountryEnabled(deps: Pick<Deps, "db">, environmentId: string, phone: Phone): Promise<void> {
  const p = await providers.findProviderByKind(deps.db, environmentId, "sms");
  const countries = (p?.settings as { enabledCountries?: { isoCountryCode?: string }[] } | undefined)?.enabledCountries ?? [];
  if (countries.length > 0 && !countries.some((c) => c.isoCountryCode?.toUpperCase() === phone.isoCountryCode))
    throw unprocessable("phone_country_not_enabled", `this environment does not send SMS to numbers of ${phone.isoCountryCode}`);
}

/** Redeems the code and names the credential it proves (the test account's fixed code only for its identifier). */
async function redeem(deps: Deps, env: PublicEnvironment, channel: Channel, verificationId: string, code: string): Promise<ProvenCredential> {
  const fixed = async (v: Verification<string | Phone>) =>
    verifyTestAccountCode(deps, env.environmentId, typeof v.identifier === "string" ? v.identifier : v.identifier.e164, code);
  const identifier = await codeBook(deps).redeem<string | Phone>(env.environmentId, channel, verificationId, code, fixed);
  if (typeof identifier === "string") return { kind: "email", email: identifier };
  return { kind: "phone", ...identifier };
}

/** Signs in the owner of the proven address or number; a new user when nobody has it. */
export async function signInWithCode(deps: Deps, env: PublicEnvironment, channel: Channel, verificationId: string, code: string, meta: ClientMeta): Promise<SignInResult> {
  const credential = await redeem(deps, env, channel, verificationId, code);
  return signInWith(deps, env, credential, meta);
}

/** Adds the proven address or number to the signed-in user (422 credential_owned_by_another_user if taken). */
export async function linkWithCode(
  deps: Deps,
  env: PublicEnvironment,
  principal: EndUserPrincipal,
  channel: Channel,
  verificationId: string,
  code: string,
  meta: ClientMeta,
): Promise<{ user: UserAggregateRecord; tokens: SessionTokens }> {
  const credential = await redeem(deps, env, channel, verificationId, code);
  return linkCredential(deps, env, principal, credential, meta);
}
