import { randomUUID } from "node:crypto";
import type { WebhookSettings } from "../config.js";
import type { CustomerBackup, CustomerBackupKey, CustomerBackupTarget } from "../domain/deps.js";
import { badRequest, DomainError } from "../errors.js";
import { checkWebhookUrl, destinationRules, type DestinationRules } from "../net/destination-policy.js";
import { DESTINATION_REFUSED, pinnedClient } from "../net/pinned-fetch.js";
import { signedHeaders } from "../crypto/webhook-signing.js";
import { backupLocationRefused, backupLocationUnavailable } from "./backup-errors.js";

/**
 * A customer's own backup service as a backup location: the environment names a URL and a Standard Webhooks
 * secret (`whsec_...`), and the service talks to it as it delivers webhooks, so a customer verifies both
 * with the code they already have:
 *
 * - store: `POST {url}` with the JSON `{walletId, shareSetEpoch, holder, encryptedShare}`, signed
 *   (webhook-id, webhook-timestamp, webhook-signature over `<id>.<timestamp>.<body>`); any 2xx is stored;
 * - fetch back: `GET {url}?payload=<JSON {walletId, shareSetEpoch, holder}>`, signed the same way with
 *   that JSON as the signed body: a GET has no body, and the Standard Webhooks libraries verify a JSON
 *   payload and hand it back parsed (`verify(searchParams.get("payload"), headers)`), so the signed bytes
 *   travel in the request as a POST's body does. 200 with the stored JSON, or 404 when it has none.
 *
 * The URL obeys the webhook destination policy (SSRF rules: no private or special-purpose addresses, https
 * in live, loopback only in sandbox) when written and again at every connection (src/net/pinned-fetch.ts).
 * The share is opaque here: it is already encrypted to its holder, the customer never sees it in clear. The
 * domain sees it as the CustomerBackup port (src/domain/deps.ts).
 */
export interface CustomerBackupOptions {
  /** Timeout of each request (default: the webhook request timeout). */
  timeoutMs?: number;
  /** Largest answer read back (default 64 KiB). */
  maxBytes?: number;
}

// THREE_OF_FIVE has the most holders of the spec's schemes; a little room beyond it.
const MAX_HOLDER = 255;
const USER_AGENT = "Sigil-Backups/1";

/** The URL as written, checked against the destination policy: a 400 invalid_backup_url when refused. */
export function checkCustomerBackupUrl(raw: string, rules: DestinationRules): string {
  try {
    return checkWebhookUrl(raw, rules);
  } catch (err) {
    if (err instanceof DomainError) throw badRequest("invalid_backup_url", err.message.replace(/webhook/g, "backup"), err.payload);
    throw err;
  }
}

export function createCustomerBackup(webhooks: Pick<WebhookSettings, "allowHosts" | "sandboxLoopback" | "protectedPorts" | "requestTimeoutMs">, options: CustomerBackupOptions = {}): CustomerBackup {
  const timeoutMs = options.timeoutMs ?? webhooks.requestTimeoutMs;
  const maxBytes = options.maxBytes ?? 64 * 1024;

  /** One signed request through a client pinned to the policy's addresses; `signedBody` is what is signed. */
  const send = async (target: CustomerBackupTarget, method: "POST" | "GET", url: string, signedBody: string) => {
    const rules = destinationRules(webhooks, target.environmentName);
    checkCustomerBackupUrl(url, rules);
    const headers: Record<string, string> = {
      "user-agent": USER_AGENT,
      accept: "application/json",
      ...signedHeaders(target.secret, `msg_${randomUUID()}`, new Date(), signedBody),
    };
    if (method === "POST") headers["content-type"] = "application/json";
    const client = pinnedClient(url, rules);
    try {
      const init = { headers, signal: AbortSignal.timeout(timeoutMs), maxBytes: maxBytes + 1 };
      return await (method === "POST" ? client.post({ ...init, body: signedBody }) : client.get(init));
    } catch (err) {
      // Refused at connect time: the host now resolves to an address the policy does not allow.
      const e = err as { code?: string; cause?: { code?: string } } | undefined;
      if (e?.code === DESTINATION_REFUSED || e?.cause?.code === DESTINATION_REFUSED)
        throw badRequest("invalid_backup_url", "the backup URL resolves to an address that is not an allowed destination");
      throw backupLocationUnavailable("external");
    } finally {
      await client.close();
    }
  };

  const checkKey = (key: CustomerBackupKey) => {
    if (!Number.isInteger(key.holder) || key.holder < 1 || key.holder > MAX_HOLDER) throw badRequest("invalid_backup_holder", `holder must be a holder index from 1 to ${MAX_HOLDER}`);
    if (!Number.isSafeInteger(key.shareSetEpoch) || key.shareSetEpoch < 1) throw badRequest("invalid_share_set_epoch", "shareSetEpoch must be a positive integer");
  };

  const failed = (status: number) => (status === 401 || status === 403 ? backupLocationRefused("external") : backupLocationUnavailable("external"));

  return {
    async store(target, backup) {
      checkKey(backup);
      const { walletId, shareSetEpoch, holder, encryptedShare } = backup;
      const res = await send(target, "POST", target.url, JSON.stringify({ walletId, shareSetEpoch, holder, encryptedShare }));
      if (res.status < 200 || res.status > 299) throw failed(res.status);
    },

    async fetch(target, key) {
      checkKey(key);
      const payload = JSON.stringify({ walletId: key.walletId, shareSetEpoch: key.shareSetEpoch, holder: key.holder });
      const u = new URL(target.url);
      u.searchParams.set("payload", payload);
      const res = await send(target, "GET", u.href, payload);
      if (res.status === 404) return null;
      if (res.status !== 200) throw failed(res.status);
      // The excerpt is cut at maxBytes + 1: longer means the answer was too large to be a share.
      if (res.excerpt === null || Buffer.byteLength(res.excerpt) > maxBytes) throw backupLocationUnavailable("external");
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(res.excerpt) as Record<string, unknown>;
      } catch {
        throw backupLocationUnavailable("external");
      }
      // The answer must be the backup asked for, not another wallet's, epoch's or holder's.
      const same = body?.walletId === key.walletId && body.shareSetEpoch === key.shareSetEpoch && body.holder === key.holder;
      if (!same || typeof body.encryptedShare !== "string" || body.encryptedShare === "") throw backupLocationUnavailable("external");
      return body.encryptedShare;
    },
  };
}
