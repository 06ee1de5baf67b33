import { Webhook } from "standardwebhooks";

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the signed content is
 * `<webhook-id>.<webhook-timestamp>.<body>`, HMAC-SHA256 under the base64-decoded part of the `whsec_`
 * secret, sent as `webhook-signature: v1,<base64>`. Done by the `standardwebhooks` package, the same one
 * a receiver verifies with.
 */
export function signedHeaders(secret: string, messageId: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(timestamp),
    // The package signs with whole seconds; pass the same second we put in the header.
    "webhook-signature": new Webhook(secret).sign(messageId, new Date(timestamp * 1000), body),
  };
}
