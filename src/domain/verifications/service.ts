import * as testAccounts from "../../db/repositories/test-accounts.js";
import * as providers from "../../db/repositories/providers.js";
import type { SignedInUserRecord } from "../../db/repositories/user-aggregate.js";
import { unprocessable } from "../../errors.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import type { ClientMeta, SessionTokens } from "../sessions/service.js";
import type { ProvenCredential } from "../sign-in/credentials.js";
import { linkCredential, signInWith, type SignInResult } from "../sign-in/pipeline.js";
import { checkMethodEnabled } from "../sign-in/policy.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { verifyTestAccountCode } from "../test-accounts/service.js";
import { checkEnvironmentSms, checkIdentifierSends } from "./budgets.js";
import { codeBookOf, type CodeBook, type Channel, type Verification } from "./codes.js";
import { mailCode, smsAccount, smsCode } from "./delivery.js";
import { normaliseEmail } from "./email.js";
import { normalisePhone, type Phone, type PhoneInput } from "./phone.js";
import { observedSignIn } from "../sign-in/observed.js";

/**
 * E-mail and SMS one-time codes (the operations of src/rpc/verifications): create and retry send a code,
 * sign-in and verify redeem it and hand the proven address or number to the one sign-in pipeline (sign in
 * or sign up; or add it to the signed-in user). Codes live in the store (./codes.ts).
 */

/**
 * Before a code is sent: the identifier still has wrong codes left today, and it has not been sent
 * SIGIL_CODE_SENDS_PER_MINUTE codes this minute (429 with the seconds to wait; ./budgets.ts).
 */
async function checkSendable(deps: Pick<Deps, "store" | "config">, book: CodeBook, environmentId: string, channel: Channel, identifier: string): Promise<void> {
  await book.checkFailuresLeft(environmentId, identifier);
  await checkIdentifierSends(deps.store, deps.config.verifications.sendsPerIdentifierPerMinute, environmentId, channel, identifier);
}

/** An SMS is about to go out: the environment's hourly and daily SMS budget pays for it (SMS pumping). */
const chargeSms = (deps: Pick<Deps, "store" | "config">, environmentId: string) =>
  checkEnvironmentSms(deps.store, { perHour: deps.config.verifications.smsPerEnvironmentPerHour, perDay: deps.config.verifications.smsPerEnvironmentPerDay }, environmentId);

async function isTestAccount(deps: Pick<Deps, "db">, environmentId: string, id: { email?: string; e164?: string }): Promise<boolean> {
  const a = await testAccounts.findTestAccount(deps.db, environmentId);
  if (!a) return false;
  return id.email !== undefined ? a.email?.toLowerCase() === id.email : a.phoneNumber === id.e164;
}

export async function createEmailVerification(deps: Deps, env: PublicEnvironment, rawEmail: string): Promise<{ verificationId: string; email: string }> {
  const email = normaliseEmail(rawEmail);
  await checkMethodEnabled(deps.db, env.environmentId, { kind: "email", email });
  const book = codeBookOf(deps);
  await checkSendable(deps, book, env.environmentId, "email", email);
  const testAccount = await isTestAccount(deps, env.environmentId, { email });
  const { id, code } = await book.open(env.environmentId, "email", email, testAccount);
  if (code) await mailCode(deps, env.environmentId, email, code).catch((err) => forget(book, env.environmentId, "email", id, err));
  return { verificationId: id, email };
}

export async function retryEmailVerification(deps: Deps, env: PublicEnvironment, verificationId: string, rawEmail: string): Promise<{ verificationId: string; email: string }> {
  const email = normaliseEmail(rawEmail);
  const book = codeBookOf(deps);
  const v = await book.find<string>(env.environmentId, "email", verificationId);
  if (v.identifier !== email) throw unprocessable("verification_identifier_mismatch", "this verification was started for another e-mail address");
  await checkSendable(deps, book, env.environmentId, "email", email);
  const code = await book.renew(env.environmentId, verificationId, v);
  if (code) await mailCode(deps, env.environmentId, email, code).catch((err) => forget(book, env.environmentId, "email", verificationId, err));
  return { verificationId, email };
}

export async function createSmsVerification(deps: Deps, env: PublicEnvironment, input: PhoneInput): Promise<{ verificationId: string; phone: Phone }> {
  const phone = normalisePhone(input);
  const account = await smsAccount(deps, env.environmentId);
  await checkCountryEnabled(deps, env.environmentId, phone);
  const book = codeBookOf(deps);
  await checkSendable(deps, book, env.environmentId, "sms", phone.e164);
  const testAccount = await isTestAccount(deps, env.environmentId, { e164: phone.e164 });
  if (!testAccount) await chargeSms(deps, env.environmentId);
  const { id, code } = await book.open(env.environmentId, "sms", phone, testAccount);
  if (code) await smsCode(deps, account, env.environmentId, phone.e164, code).catch((err) => forget(book, env.environmentId, "sms", id, err));
  return { verificationId: id, phone };
}

export async function retrySmsVerification(deps: Deps, env: PublicEnvironment, verificationId: string, input: PhoneInput): Promise<{ verificationId: string; phone: Phone }> {
  const phone = normalisePhone(input);
  const book = codeBookOf(deps);
  const v = await book.find<Phone>(env.environmentId, "sms", verificationId);
  if (v.identifier.e164 !== phone.e164) throw unprocessable("verification_identifier_mismatch", "this verification was started for another phone number");
  const account = await smsAccount(deps, env.environmentId);
  await checkSendable(deps, book, env.environmentId, "sms", phone.e164);
  if (!v.testAccount) await chargeSms(deps, env.environmentId);
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
  const identifier = await codeBookOf(deps).redeem<string | Phone>(env.environmentId, channel, verificationId, code, fixed);
  if (typeof identifier === "string") return { kind: "email", email: identifier };
  return { kind: "phone", ...identifier };
}

/** Signs in the owner of the proven address or number; a new user when nobody has it. */
export async function signInWithCode(deps: Deps, env: PublicEnvironment, channel: Channel, verificationId: string, code: string, meta: ClientMeta): Promise<SignInResult> {
  return observedSignIn(deps, channel, async () => {
    const credential = await redeem(deps, env, channel, verificationId, code);
    return signInWith(deps, env, credential, meta);
  });
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
): Promise<{ user: SignedInUserRecord; tokens: SessionTokens }> {
  const credential = await redeem(deps, env, channel, verificationId, code);
  return linkCredential(deps, env, principal, credential, meta);
}
