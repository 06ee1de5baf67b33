import type { Queryable } from "../db.js";
import { setEnabledAt } from "./enablement.js";

export interface GlobalWalletSettingsRecord {
  id: string;
  environmentId: string;
  walletName: string;
  walletIconUrl: string | null;
  popupPageTitle: string | null;
  customCssUrl: string | null;
  termsUrl: string | null;
  privacyPolicyUrl: string | null;
  enabledChains: string[];
  enabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type GlobalWalletSettingsFields = Pick<
  GlobalWalletSettingsRecord,
  "walletName" | "walletIconUrl" | "popupPageTitle" | "customCssUrl" | "termsUrl" | "privacyPolicyUrl" | "enabledChains"
>;

/** Inserts the settings, enabled at creation; a second row for the environment violates the unique index. */
export async function insertGlobalWalletSettings(
  q: Queryable,
  environmentId: string,
  id: string,
  s: GlobalWalletSettingsFields,
): Promise<GlobalWalletSettingsRecord> {
  const row = await q.one(
    `INSERT INTO global_wallet_settings (id, environment_id, wallet_name, wallet_icon_url, popup_page_title, custom_css_url,
       terms_url, privacy_policy_url, enabled_chains, enabled_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now()) RETURNING *`,
    [id, environmentId, s.walletName, s.walletIconUrl, s.popupPageTitle, s.customCssUrl, s.termsUrl, s.privacyPolicyUrl, s.enabledChains],
  );
  return toSettings(row);
}

export async function findGlobalWalletSettings(q: Queryable, environmentId: string, forUpdate = false): Promise<GlobalWalletSettingsRecord | null> {
  const row = await q.oneOrNone(
    `SELECT * FROM global_wallet_settings WHERE environment_id = $1${forUpdate ? " FOR UPDATE" : ""}`,
    [environmentId],
  );
  return row ? toSettings(row) : null;
}

/** Writes every field (the caller merges the change into the current row first). */
export async function updateGlobalWalletSettings(
  q: Queryable,
  environmentId: string,
  s: GlobalWalletSettingsFields,
): Promise<GlobalWalletSettingsRecord | null> {
  const row = await q.oneOrNone(
    `UPDATE global_wallet_settings SET wallet_name = $2, wallet_icon_url = $3, popup_page_title = $4, custom_css_url = $5,
       terms_url = $6, privacy_policy_url = $7, enabled_chains = $8, updated_at = now()
     WHERE environment_id = $1 RETURNING *`,
    [environmentId, s.walletName, s.walletIconUrl, s.popupPageTitle, s.customCssUrl, s.termsUrl, s.privacyPolicyUrl, s.enabledChains],
  );
  return row ? toSettings(row) : null;
}

export async function setGlobalWalletEnabled(q: Queryable, environmentId: string, enabled: boolean): Promise<GlobalWalletSettingsRecord | null> {
  const row = await setEnabledAt(q, "global_wallet_settings", environmentId, null, enabled);
  return row ? toSettings(row) : null;
}

function toSettings(r: Record<string, any>): GlobalWalletSettingsRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    walletName: r.wallet_name,
    walletIconUrl: r.wallet_icon_url,
    popupPageTitle: r.popup_page_title,
    customCssUrl: r.custom_css_url,
    termsUrl: r.terms_url,
    privacyPolicyUrl: r.privacy_policy_url,
    enabledChains: r.enabled_chains,
    enabledAt: r.enabled_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
