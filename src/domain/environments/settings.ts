import { badRequest } from "../../errors.js";

/**
 * Environment settings: one JSON document per environment with its sections (general, security, sdk, and
 * the published client's chains, design and privacy), in the JSON form of
 * sigil.environments.v0.EnvironmentSettings. A section given in an update replaces the stored one; sections
 * never stored read as the defaults below.
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

export const DEFAULT_JWT_EXPIRATION_SECONDS = 7200;
export const MIN_JWT_EXPIRATION_SECONDS = 60;
export const MAX_JWT_EXPIRATION_SECONDS = 30 * 24 * 3600;

export function defaultSettings(displayName?: string): Required<SettingsDocument> {
  return {
    general: displayName ? { displayName } : {},
    security: { jwtExpirationSeconds: DEFAULT_JWT_EXPIRATION_SECONDS, allowedRedirectUrls: [], allowedEmailDomains: [] },
    sdk: { collectUserData: { email: { enabled: true, required: false } }, multiWallet: false, confirmWalletTransfers: true },
    chains: [],
    design: {},
    privacy: {},
  };
}

/** The stored document with defaults for the sections it lacks. */
export function effectiveSettings(stored: Record<string, unknown>): Required<SettingsDocument> {
  const d = defaultSettings();
  const s = stored as SettingsDocument;
  return {
    general: s.general ?? d.general,
    security: s.security ?? d.security,
    sdk: s.sdk ?? d.sdk,
    chains: s.chains ?? d.chains,
    design: s.design ?? d.design,
    privacy: s.privacy ?? d.privacy,
  };
}

/** Checks the rules the proto options cannot say and normalises (0 seconds: the default). */
export function checkSections(update: SettingsDocument): SettingsDocument {
  const out: SettingsDocument = { ...update };
  if (update.security) {
    const secs = Number(update.security.jwtExpirationSeconds ?? 0);
    const normalised = secs === 0 ? DEFAULT_JWT_EXPIRATION_SECONDS : secs;
    if (normalised < MIN_JWT_EXPIRATION_SECONDS || normalised > MAX_JWT_EXPIRATION_SECONDS)
      throw badRequest(
        "invalid_jwt_expiration",
        `security.jwtExpirationSeconds must be between ${MIN_JWT_EXPIRATION_SECONDS} and ${MAX_JWT_EXPIRATION_SECONDS}`,
        { field: "security.jwtExpirationSeconds" },
      );
    out.security = { ...update.security, jwtExpirationSeconds: normalised };
  }
  const collect = update.sdk?.collectUserData as Record<string, { enabled?: boolean; required?: boolean }> | undefined;
  for (const [field, rule] of Object.entries(collect ?? {})) {
    if (rule?.required && !rule.enabled)
      throw badRequest("invalid_user_data_field", `sdk.collectUserData.${field} cannot be required without being enabled`, {
        field: `sdk.collectUserData.${field}`,
      });
  }
  return out;
}
