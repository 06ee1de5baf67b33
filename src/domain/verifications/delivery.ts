import * as projects from "../../db/repositories/projects.js";
import * as providers from "../../db/repositories/providers.js";
import { DomainError } from "../../errors.js";
import type { Deps, SmsAccount } from "../deps.js";
import { effectiveSettings } from "../environments/settings.js";
import { clientSecretAad } from "../providers/service.js";
import { CODE_TTL_SECONDS } from "./codes.js";

/** What the messages call the app: the environment's display name (general settings), else "Sigil". */
async function appName(deps: Pick<Deps, "db">, environmentId: string): Promise<string> {
  const env = await projects.findEnvironmentRecord(deps.db, environmentId);
  const name = env ? (effectiveSettings(env.settings).general as { displayName?: unknown }).displayName : undefined;
  return typeof name === "string" && name.trim() ? name.trim() : "Sigil";
}

/**
 * A failed hand-over to the SMTP server or the SMS gateway: 503, the code was not sent (the caller forgets
 * the verification). The log says why, never with the code.
 */
function undelivered(deps: Pick<Deps, "log">, channel: "mail" | "sms", err: unknown): DomainError {
  deps.log.warn(`could not send a sign-in code by ${channel}`, { error: err instanceof Error ? err.message : String(err) });
  return new DomainError("unavailable", `${channel}_unavailable`, `the ${channel === "mail" ? "mail server" : "SMS gateway"} did not accept the code; try again later`);
}

export async function mailCode(deps: Pick<Deps, "db" | "mailer" | "log">, environmentId: string, to: string, code: string): Promise<void> {
  const app = await appName(deps, environmentId);
  const minutes = CODE_TTL_SECONDS / 60;
  const text = `Your sign-in code for ${app} is ${code}\n\nIt is valid for ${minutes} minutes and can be used once. If you did not ask for it, ignore this mail.\n`;
  await deps.mailer.send({ to, subject: `Your sign-in code for ${app}`, text }).catch((err) => {
    throw undelivered(deps, "mail", err);
  });
}

export async function smsCode(deps: Pick<Deps, "db" | "sms" | "log">, account: SmsAccount, environmentId: string, to: string, code: string): Promise<void> {
  const app = await appName(deps, environmentId);
  await deps.sms.send(account, { to, body: `${code} is your sign-in code for ${app}. It expires in ${CODE_TTL_SECONDS / 60} minutes.` }).catch((err) => {
    throw undelivered(deps, "sms", err);
  });
}

/**
 * The environment's SMS gateway account, from its `sms` provider: account SID in `accountSid`, sender
 * number in `smsNumber` (both provider settings of the management API), auth token as the provider's
 * sealed client secret. 403 sign_in_method_disabled without an enabled provider; 422
 * sms_provider_incomplete when a gateway is configured (SIGIL_SMS_API_URL) and a part is missing. The dev
 * outbox needs none of them.
 */
export async function smsAccount(deps: Pick<Deps, "db" | "sealer" | "config">, environmentId: string): Promise<SmsAccount> {
  const p = await providers.findProviderByKind(deps.db, environmentId, "sms");
  if (!p || !p.enabledAt) throw new DomainError("forbidden", "sign_in_method_disabled", "SMS sign-in is not enabled in this environment");
  const settings = p.settings as { accountSid?: unknown; smsNumber?: unknown };
  const account = {
    accountSid: typeof settings.accountSid === "string" ? settings.accountSid : "",
    from: typeof settings.smsNumber === "string" ? settings.smsNumber : "",
    authToken: p.clientSecretSealed ? deps.sealer.open(p.clientSecretSealed, clientSecretAad(p.id)) : "",
  };
  if (deps.config.verifications.smsApiUrl && (!account.accountSid || !account.from || !account.authToken))
    throw new DomainError("unprocessable", "sms_provider_incomplete", "the environment's sms provider needs an accountSid, an smsNumber and a clientSecret (auth token)");
  return account;
}
