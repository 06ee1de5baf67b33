import { effectiveSettings } from "../environments/settings.js";

/** The second-factor kinds Sigil has (the client's MFADeviceType). */
export const MFA_DEVICE_TYPES = ["totp", "passkey", "email"] as const;
export type MfaDeviceType = (typeof MFA_DEVICE_TYPES)[number];

/**
 * An environment's MFA settings (security.mfa, the client's MFASettings) as sign-in and the MFA operations
 * read them: whether second factors are on, whether every user must pass one, the kinds offered, whether
 * recovery codes may stand in, and the operations that ask for a fresh factor.
 */
export interface MfaPolicy {
  enabled: boolean;
  required: boolean;
  methods: MfaDeviceType[];
  backupCodes: boolean;
  actions: { action: string; required: boolean }[];
}

interface StoredMfaSettings {
  enabled?: boolean;
  required?: boolean;
  methods?: { type: string; enabled?: boolean; allowBackupCodes?: boolean | null }[];
  actions?: { action: string; required?: boolean }[];
}

export function mfaPolicyOf(settings: Record<string, unknown>): MfaPolicy {
  const m = ((effectiveSettings(settings).security as Record<string, unknown>).mfa ?? {}) as StoredMfaSettings;
  const listed = m.methods ?? [];
  // None listed: every kind. Listed: those enabled.
  const methods = listed.length === 0 ? [...MFA_DEVICE_TYPES] : MFA_DEVICE_TYPES.filter((t) => listed.some((l) => l.type === t && l.enabled));
  return {
    enabled: !!m.enabled,
    required: !!m.enabled && !!m.required,
    methods,
    // Recovery codes stand in unless every listed kind says they may not.
    backupCodes: listed.length === 0 || listed.some((l) => l.enabled && l.allowBackupCodes !== false),
    actions: (m.actions ?? []).map((a) => ({ action: a.action, required: !!a.required })),
  };
}
