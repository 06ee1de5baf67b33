import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { SmsSender } from "../domain/deps.js";
import type { Logger } from "../log.js";

const REQUEST_TIMEOUT_MS = 10_000;

/**
 * SMS through an HTTP SMS gateway speaking the widely used Messages API: `POST
 * {SIGIL_SMS_API_URL}/Accounts/{accountSid}/Messages.json`, a form (To, From, Body), Basic auth
 * accountSid:authToken; any 2xx is accepted. Unset, the dev outbox: each SMS as JSON in
 * <dataDir>/sms-outbox/<time>-<id>.json and a log line naming the file (never the text: it holds a code).
 */
/** Where SMS go while SIGIL_SMS_API_URL is unset. */
export const devSmsOutboxDir = (dataDir: string) => path.join(dataDir, "sms-outbox");

export function createSmsSender(apiUrl: string | undefined, dataDir: string, log: Logger): SmsSender {
  if (apiUrl) {
    return {
      async send(account, sms) {
        const url = `${apiUrl}/Accounts/${encodeURIComponent(account.accountSid)}/Messages.json`;
        const res = await fetch(url, {
          method: "POST",
          headers: {
            authorization: `Basic ${Buffer.from(`${account.accountSid}:${account.authToken}`).toString("base64")}`,
            "content-type": "application/x-www-form-urlencoded",
            accept: "application/json",
          },
          body: new URLSearchParams({ To: sms.to, From: account.from, Body: sms.body }).toString(),
          redirect: "error",
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        await res.body?.cancel();
        if (!res.ok) throw new Error(`the SMS gateway answered ${res.status}`);
      },
    };
  }
  const outbox = devSmsOutboxDir(dataDir);
  return {
    async send(account, sms) {
      await mkdir(outbox, { recursive: true, mode: 0o700 });
      const file = path.join(outbox, `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID()}.json`);
      await writeFile(file, JSON.stringify({ to: sms.to, from: account.from, accountSid: account.accountSid, body: sms.body }, null, 2) + "\n", { mode: 0o600 });
      log.info("SMS written to the dev outbox (SIGIL_SMS_API_URL is unset)", { file });
    },
  };
}
