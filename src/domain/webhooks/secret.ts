import { randomBytes } from "node:crypto";
import type { Sealer } from "../../crypto/seal.js";

/**
 * Webhook signing secrets, in the Standard Webhooks format: `whsec_` + base64 of 32 random bytes. The
 * HMAC-SHA256 key is the base64-decoded part after the prefix (what the `standardwebhooks` package does).
 * Secrets are sealed at rest, bound to their webhook row; only create and rotate return them.
 */
export const WEBHOOK_SECRET_PREFIX = "whsec_";

/** The associated data that binds a sealed signing secret to its webhook row. */
export const webhookSecretAad = (webhookId: string) => `webhook:${webhookId}:secret`;

export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString("base64");
}

export function sealWebhookSecret(sealer: Sealer, webhookId: string, secret: string): string {
  return sealer.seal(secret, webhookSecretAad(webhookId));
}

/** The plain `whsec_...` secret of a webhook (for signing deliveries). */
export function openWebhookSecret(sealer: Sealer, webhookId: string, sealed: string): string {
  return sealer.open(sealed, webhookSecretAad(webhookId));
}
