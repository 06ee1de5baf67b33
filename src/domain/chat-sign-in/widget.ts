import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { unprocessable } from "../../errors.js";

/**
 * How old signed widget data may be. The widget signs once, when the user confirms; a day is what the
 * platform's own guidance suggests, and each signed datum is accepted once anyway (service.ts).
 */
export const FRESHNESS_SECONDS = 24 * 60 * 60;
/** The platform's clock and ours may differ a little. */
const FUTURE_SKEW_SECONDS = 60;

/** The widget's signed fields, in its own (snake_case) names, as strings; `hash` is the signature. */
export type WidgetFields = Record<string, string>;

/** What the signed data says about the chat account. */
export interface ChatAccount {
  id: string;
  username?: string;
  firstName?: string;
  lastName?: string;
  photoUrl?: string;
  authDate: number;
}

/**
 * Checks the login widget's signature: HMAC-SHA-256 over the data-check-string (every field but `hash`, as
 * `key=value` lines sorted by key) keyed with SHA-256 of the bot token, compared in constant time; and that
 * the data was signed within the freshness window. Throws 422 invalid_chat_auth / chat_auth_expired.
 */
export function verifyWidgetData(botToken: string, fields: WidgetFields, now = Date.now()): ChatAccount {
  const { hash, ...signed } = fields;
  if (!hash || !/^[0-9a-fA-F]{64}$/.test(hash) || !signed.id || !/^[0-9]{1,20}$/.test(signed.id) || !/^[0-9]{1,12}$/.test(signed.auth_date ?? ""))
    throw unprocessable("invalid_chat_auth", "the chat login data must carry id, auth_date and hash");
  const checkString = Object.keys(signed)
    .sort()
    .map((k) => `${k}=${signed[k]}`)
    .join("\n");
  const secret = createHash("sha256").update(botToken).digest();
  const expected = createHmac("sha256", secret).update(checkString).digest();
  if (!timingSafeEqual(expected, Buffer.from(hash, "hex"))) throw unprocessable("invalid_chat_auth", "the chat login data's signature does not verify");
  const authDate = Number(signed.auth_date);
  const nowSeconds = Math.floor(now / 1000);
  if (authDate > nowSeconds + FUTURE_SKEW_SECONDS || nowSeconds - authDate > FRESHNESS_SECONDS)
    throw unprocessable("chat_auth_expired", "the chat login data is too old (or from the future): sign in with the widget again");
  return {
    id: signed.id,
    authDate,
    ...(signed.username ? { username: signed.username } : {}),
    ...(signed.first_name ? { firstName: signed.first_name } : {}),
    ...(signed.last_name ? { lastName: signed.last_name } : {}),
    ...(signed.photo_url ? { photoUrl: signed.photo_url } : {}),
  };
}

/** The widget's redirect mode sends its fields as a query string: that string is a chat auth token. */
export function fieldsOfToken(token: string): WidgetFields {
  const params = new URLSearchParams(token.startsWith("?") ? token.slice(1) : token);
  // No prototype: a field named __proto__ or constructor is a field like any other.
  const fields: WidgetFields = Object.create(null);
  for (const [k, v] of params) {
    if (Object.hasOwn(fields, k)) throw unprocessable("invalid_chat_auth", "the chat auth token names a field twice");
    fields[k] = v;
  }
  if (Object.keys(fields).length > 20) throw unprocessable("invalid_chat_auth", "the chat auth token has too many fields");
  return fields;
}
