import { randomUUID } from "node:crypto";
import { badRequest, conflict, notFound } from "../../errors.js";
import * as repo from "../../db/repositories/global-wallet.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";

/** A change to the settings: undefined keeps a field, null (an empty string on the wire) clears it. */
export type SettingsChange = {
  [K in keyof repo.GlobalWalletSettingsFields]?: repo.GlobalWalletSettingsFields[K];
};

const snapshot = (s: repo.GlobalWalletSettingsRecord) => {
  const { environmentId: _e, createdAt: _c, updatedAt: _u, ...rest } = s;
  return rest;
};

export async function getSettings(deps: Pick<Deps, "db">, access: EnvironmentAccess) {
  const s = await repo.findGlobalWalletSettings(deps.db, access.environmentId);
  if (!s) throw notFound("global wallet settings");
  return s;
}

/** Creates the settings of the environment's global wallet, enabled at once (409 when they exist). */
export async function createSettings(deps: Pick<Deps, "db">, access: EnvironmentAccess, fields: repo.GlobalWalletSettingsFields) {
  if (await repo.findGlobalWalletSettings(deps.db, access.environmentId)) throw alreadyExists();
  try {
    return await audited(deps, access, async (t, record) => {
      const created = await repo.insertGlobalWalletSettings(t, access.environmentId, randomUUID(), {
        ...fields,
        enabledChains: dedupe(fields.enabledChains),
      });
      await record({ action: "global_wallet.created", resourceType: "global_wallet", resourceId: created.id, after: snapshot(created) });
      return created;
    });
  } catch (err) {
    if ((err as { code?: string }).code === "23505") throw alreadyExists();
    throw err;
  }
}

/** Changes the given fields (the row is locked while merging, so concurrent updates do not lose fields). */
export async function updateSettings(deps: Pick<Deps, "db">, access: EnvironmentAccess, change: SettingsChange) {
  if (change.walletName === "" || change.walletName === null)
    throw badRequest("wallet_name_required", "walletName cannot be cleared", { field: "walletName" });
  return audited(deps, access, async (t, record) => {
    const before = await repo.findGlobalWalletSettings(t, access.environmentId, true);
    if (!before) throw notFound("global wallet settings");
    const merged: repo.GlobalWalletSettingsFields = {
      walletName: change.walletName ?? before.walletName,
      walletIconUrl: change.walletIconUrl !== undefined ? change.walletIconUrl : before.walletIconUrl,
      popupPageTitle: change.popupPageTitle !== undefined ? change.popupPageTitle : before.popupPageTitle,
      customCssUrl: change.customCssUrl !== undefined ? change.customCssUrl : before.customCssUrl,
      termsUrl: change.termsUrl !== undefined ? change.termsUrl : before.termsUrl,
      privacyPolicyUrl: change.privacyPolicyUrl !== undefined ? change.privacyPolicyUrl : before.privacyPolicyUrl,
      enabledChains: change.enabledChains ? dedupe(change.enabledChains) : before.enabledChains,
    };
    const after = (await repo.updateGlobalWalletSettings(t, access.environmentId, merged))!;
    await record({
      action: "global_wallet.updated",
      resourceType: "global_wallet",
      resourceId: after.id,
      before: snapshot(before),
      after: snapshot(after),
    });
    return after;
  });
}

export async function setGlobalWalletEnabled(deps: Pick<Deps, "db">, access: EnvironmentAccess, enabled: boolean) {
  return audited(deps, access, async (t, record) => {
    const before = await repo.findGlobalWalletSettings(t, access.environmentId, true);
    if (!before) throw notFound("global wallet settings");
    const after = (await repo.setGlobalWalletEnabled(t, access.environmentId, enabled))!;
    await record({
      action: enabled ? "global_wallet.enabled" : "global_wallet.disabled",
      resourceType: "global_wallet",
      resourceId: after.id,
      before: { enabledAt: before.enabledAt },
      after: { enabledAt: after.enabledAt },
    });
    return after;
  });
}

const dedupe = (xs: string[]) => [...new Set(xs)];
const alreadyExists = () => conflict("global_wallet_settings_already_exist", "global wallet settings already exist for this environment");
