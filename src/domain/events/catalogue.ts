/**
 * The event catalogue: every event the service emits, named `{resource}.{action}`. An audited change in an
 * environment whose action is listed here also writes an event in the same transaction (the outbox), which
 * the dispatcher delivers to the webhooks subscribed to its name. `GET /eventTypes` lists this catalogue.
 */
export interface EventType {
  name: string;
  description: string;
}

const RESOURCES: Record<string, { what: string; actions: Record<string, string> }> = {
  user: {
    what: "a user",
    actions: { created: "created", updated: "updated", deleted: "deleted" },
  },
  "user.session": { what: "a session of a user", actions: { created: "started", revoked: "revoked" } },
  "user.sessions": { what: "all sessions of a user", actions: { revoked: "revoked" } },
  "user.mfa": { what: "a user's second factor", actions: { passed: "passed at sign-in or for a step-up", recovery_codes_created: "given new recovery codes" } },
  "user.mfa_device": {
    what: "an MFA device of a user",
    actions: { created: "registered", verified: "verified (usable)", updated: "changed", deleted: "removed" },
  },
  "user.passkey": { what: "a passkey of a user", actions: { created: "registered", updated: "renamed", deleted: "removed" } },
  wallet: {
    what: "a wallet",
    actions: {
      created: "created for a user",
      linked: "linked by a user",
      unlinked: "unlinked by a user",
      deleted: "deleted (recoverable)",
      recovered: "recovered after deletion",
      exported: "exported by its owner",
    },
  },
  embedded_wallet: {
    what: "an embedded wallet",
    actions: { pregenerated: "pregenerated for an identifier", claimed: "claimed by its user", upgraded: "upgraded from V1 to V2" },
  },
  waas_wallet: {
    what: "a WaaS wallet",
    actions: {
      created: "created",
      imported: "created from an imported private key",
      refreshed: "given new key shares of the same key",
      reshared: "given key shares under another threshold scheme",
      message_signed: "used to sign a message",
      delegated_access_revoked: "no longer delegated",
      // data.encryptedDelegatedShare: the share as a HYBRID-RSA-AES-256 envelope (src/domain/waas/threshold/delegated-share.ts).
      delegated_share: "delegated: a key share was encrypted to the environment's delegated-access key",
      backed_up: "had its key shares backed up (data.location)",
      key_shares_recovered: "had its key shares recovered from a backup",
      settings_updated: "had its settings changed by its user",
      // Never sent through the outbox: an endpoint subscribed to it is the customer's own backup location,
      // which the service calls directly (signed POST to store, signed GET to read back; device-encrypted shares).
      key_share_backup: "a device's key share kept at the customer's own backup endpoint (called directly, not delivered)",
    },
  },
  verified_credential: { what: "a verified credential", actions: { created: "attached to a user", deleted: "removed by its user" } },
  provider: {
    what: "a sign-in provider",
    actions: { created: "configured", updated: "changed", deleted: "removed", enabled: "enabled", disabled: "disabled" },
  },
  allowlist: {
    what: "an allowlist",
    actions: { created: "created", updated: "changed", deleted: "deleted", enabled: "enabled", disabled: "disabled" },
  },
  allowlist_entry: { what: "an allowlist entry", actions: { created: "added", deleted: "removed" } },
  gate: { what: "a gate", actions: { created: "created", updated: "changed", deleted: "deleted", enabled: "enabled", disabled: "disabled" } },
  exchange: { what: "an exchange connection", actions: { created: "created", deleted: "deleted", enabled: "enabled", disabled: "disabled" } },
  custom_field: { what: "a custom user field", actions: { created: "created", updated: "changed", deleted: "deleted" } },
  origin: { what: "an allowed origin", actions: { created: "added", deleted: "removed" } },
  deeplink_url: { what: "a deeplink URL", actions: { created: "added", deleted: "removed" } },
  sdk_view: { what: "an SDK view", actions: { updated: "changed" } },
  custom_hostname: { what: "a custom hostname", actions: { created: "added", deleted: "removed" } },
  test_account: { what: "the test account", actions: { created: "created", deleted: "deleted" } },
  environment: { what: "the environment's settings", actions: { updated: "changed" } },
  name_service: {
    what: "a name service",
    actions: { created: "created", deleted: "deleted", enabled: "enabled", disabled: "disabled" },
  },
  global_wallet: { what: "the global wallet settings", actions: { created: "created", updated: "changed", enabled: "enabled", disabled: "disabled" } },
  "compliance.sanctions": { what: "sanctions screening", actions: { enabled: "enabled", disabled: "disabled" } },
  encryption_public_key: { what: "a delegated-access encryption key", actions: { created: "registered" } },
  waas_policy: { what: "the WaaS policy", actions: { created: "created", updated: "changed", deleted: "deleted" } },
  webhook: {
    what: "a webhook",
    actions: { created: "created", updated: "changed", deleted: "deleted", enabled: "enabled", disabled: "disabled (by a developer or after failing)" },
  },
};

export const EVENT_TYPES: readonly EventType[] = Object.entries(RESOURCES).flatMap(([resource, r]) =>
  Object.entries(r.actions).map(([action, verb]) => ({ name: `${resource}.${action}`, description: `${r.what[0]!.toUpperCase()}${r.what.slice(1)} was ${verb}.` })),
);

const NAMES = new Set(EVENT_TYPES.map((e) => e.name));

export function isEventName(name: string): boolean {
  return NAMES.has(name);
}

/** Events the SDK publishes for its own analytics: never delivered to webhooks, namespaced apart. */
export const CLIENT_EVENT_PREFIX = "client.";
