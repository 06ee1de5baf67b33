import { badRequest, unprocessable } from "../../errors.js";

/**
 * Environment settings: one JSON document per environment with its sections (general, security, sdk, and
 * the published client's chains, design and privacy), in the JSON form of
 * sigil.environments.v0.EnvironmentSettings. An update changes only the properties it names (update.ts);
 * what was never stored reads as the defaults below.
 */
export type SettingsSection = "general" | "security" | "sdk" | "design" | "privacy";
/** A chain (family) the environment's SDK offers, by name, and whether it is on. */
export interface ChainSetting {
  name: string;
  enabled: boolean;
  /** The family's networks the SDK offers; for EVM they also bound a sign-in message's Chain ID. */
  networks?: ChainNetworkSetting[];
}
/** One network of a family (JSON form: int64 ids as strings). */
export interface ChainNetworkSetting {
  networkId: string | number;
  enabled: boolean;
  chainName?: string;
}
export type SettingsDocument = Partial<Record<SettingsSection, Record<string, unknown>>> & { chains?: ChainSetting[] };

/** An end user's JWT lifetime as the client writes it (its Duration). */
interface JwtDuration {
  amount: number;
  unit: "minutes" | "hours" | "days";
}
const UNIT_SECONDS: Record<string, number> = { minutes: 60, hours: 3600, days: 86_400 };

const DEFAULT_JWT_EXPIRATION_SECONDS = 7200;
const MIN_JWT_EXPIRATION_SECONDS = 60;
export const MAX_JWT_EXPIRATION_SECONDS = 30 * 24 * 3600;

export function defaultSettings(displayName?: string): Required<SettingsDocument> {
  return {
    general: displayName ? { displayName } : {},
    security: {
      jwtDuration: { amount: DEFAULT_JWT_EXPIRATION_SECONDS / 3600, unit: "hours" } satisfies JwtDuration,
      allowedEmailDomains: [],
      auth: { storage: ["localstorage"] },
      hCaptcha: { enabled: false },
    },
    sdk: { collectUserData: { email: { enabled: true, required: false } }, multiWallet: false, confirmWalletTransfers: true },
    chains: [],
    design: {},
    privacy: {},
  };
}

/**
 * The stored document with defaults for what it lacks: a section never stored reads as its default, and
 * a stored section as its default's properties overlaid with the stored ones (an update changes only the
 * properties it names, so a section may hold a few).
 */
export function effectiveSettings(stored: Record<string, unknown>): Required<SettingsDocument> {
  const d = defaultSettings();
  const s = stored as SettingsDocument;
  return {
    general: { ...d.general, ...s.general },
    security: { ...d.security, ...s.security },
    sdk: { ...d.sdk, ...s.sdk },
    chains: s.chains ?? d.chains,
    design: { ...d.design, ...s.design },
    privacy: { ...d.privacy, ...s.privacy },
  };
}

/** The lifetime of the environment's JWTs in seconds (security.jwtDuration). */
export function jwtLifetimeSeconds(security: Record<string, unknown>): number {
  const d = security.jwtDuration as Partial<JwtDuration> | undefined;
  const seconds = Number(d?.amount) * (UNIT_SECONDS[String(d?.unit)] ?? Number.NaN);
  return Number.isInteger(seconds) && seconds > 0 ? seconds : DEFAULT_JWT_EXPIRATION_SECONDS;
}

/** Checks the rules the proto options cannot say, on the settings as an update leaves them. */
export function checkSettings(settings: SettingsDocument): void {
  const security = settings.security ?? {};
  const d = security.jwtDuration as Partial<JwtDuration> | undefined;
  if (d !== undefined) {
    const seconds = Number(d.amount) * (UNIT_SECONDS[String(d.unit)] ?? Number.NaN);
    if (!Number.isInteger(d.amount) || !(seconds >= MIN_JWT_EXPIRATION_SECONDS && seconds <= MAX_JWT_EXPIRATION_SECONDS))
      throw badRequest("invalid_jwt_duration", "security.jwtDuration must be a whole number of minutes, hours or days, from 1 minute to 30 days", {
        field: "security.jwtDuration",
      });
  }
  if ((security.hCaptcha as { enabled?: boolean } | undefined)?.enabled)
    throw unprocessable("captcha_unsupported", "Sigil verifies no captcha: security.hCaptcha cannot be enabled (sign-in is rate limited instead)", {
      field: "security.hCaptcha.enabled",
    });
  if (((security.auth as { storage?: string[] } | undefined)?.storage ?? []).includes("cookie"))
    throw unprocessable("cookie_storage_unsupported", "Sigil's sessions are bearer tokens: security.auth.storage can only be localstorage", {
      field: "security.auth.storage",
    });
  const collect = settings.sdk?.collectUserData as Record<string, { enabled?: boolean; required?: boolean }> | undefined;
  for (const [field, rule] of Object.entries(collect ?? {})) {
    if (rule?.required && !rule.enabled)
      throw badRequest("invalid_user_data_field", `sdk.collectUserData.${field} cannot be required without being enabled`, {
        field: `sdk.collectUserData.${field}`,
      });
  }
}
