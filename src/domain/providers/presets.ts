import { readFileSync } from "node:fs";

/**
 * Well-known OpenID Connect and OAuth 2 issuers. They are data (presets.json beside this file), not code:
 * adding an issuer is a change to that file only. A provider created with `preset: "<key>"` takes the
 * preset's endpoints and scopes for the fields the request leaves empty.
 */
export interface ProviderPreset {
  key: string;
  displayName: string;
  /** The provider kind the preset configures (oidc or oauth2). */
  provider: string;
  issuer: string;
  authorizationUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  scopes: string;
  /** Where a plain OAuth 2 issuer's userinfo answer keeps the account's fields (dotted paths); OIDC kinds use the standard claims. */
  claims?: ClaimMapping;
}

export interface ClaimMapping {
  accountId: string;
  username?: string;
  displayName?: string;
  photo?: string;
  email?: string;
  /** The field saying the e-mail is verified; without one, the e-mail is not taken as a verified address. */
  emailVerified?: string;
}

function load(): readonly ProviderPreset[] {
  const raw = JSON.parse(readFileSync(new URL("./presets.json", import.meta.url), "utf8")) as ProviderPreset[];
  const keys = new Set<string>();
  for (const p of raw) {
    if (!p.key || keys.has(p.key)) throw new Error(`presets.json: missing or duplicate key ${p.key}`);
    if (p.provider !== "oidc" && p.provider !== "oauth2") throw new Error(`presets.json: ${p.key} has kind ${p.provider}`);
    if (!p.authorizationUrl) throw new Error(`presets.json: ${p.key} has no authorizationUrl`);
    keys.add(p.key);
  }
  return Object.freeze(raw.map((p) => Object.freeze({ ...p })));
}

export const PROVIDER_PRESETS: readonly ProviderPreset[] = load();

export function findPreset(key: string): ProviderPreset | undefined {
  return PROVIDER_PRESETS.find((p) => p.key === key);
}
