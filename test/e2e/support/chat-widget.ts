import { createHash, createHmac } from "node:crypto";

/** The fields the chat platform's login widget signs, in its own names. */
export interface WidgetUser {
  id: number;
  first_name?: string;
  last_name?: string;
  username?: string;
  photo_url?: string;
  auth_date: number;
}

/** Signs as the platform does: HMAC-SHA-256 of the sorted key=value lines, keyed with SHA-256(bot token). */
export function signWidget(botToken: string, user: WidgetUser): Record<string, string> {
  const fields = Object.fromEntries(Object.entries(user).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
  const check = Object.keys(fields)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join("\n");
  const hash = createHmac("sha256", createHash("sha256").update(botToken).digest()).update(check).digest("hex");
  return { ...fields, hash };
}

/** The client's TelegramUser shape of signed widget data. */
export function clientChatUser(signed: Record<string, string>) {
  return {
    id: Number(signed.id),
    firstName: signed.first_name,
    lastName: signed.last_name,
    username: signed.username,
    photoURL: signed.photo_url,
    authDate: signed.auth_date,
    hash: signed.hash,
  };
}

/** A widget user signing in now (a fresh random id). */
export const widgetUser = (over: Partial<WidgetUser> = {}): WidgetUser => ({
  id: 100_000_000 + Math.floor(Math.random() * 900_000_000),
  first_name: "Ada",
  last_name: "Lovelace",
  username: `ada_${Math.random().toString(36).slice(2, 8)}`,
  photo_url: "https://cdn.example.com/ada.jpg",
  auth_date: Math.floor(Date.now() / 1000),
  ...over,
});
