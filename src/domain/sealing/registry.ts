import { walletKeyAad } from "../../crypto/wallet-keys.js";
import type { SealedColumnLocation } from "../../db/repositories/sealed-columns.js";
import { passcodeAad } from "../embedded-wallets/sdk-backups.js";
import { signingKeyAad } from "../environments/keys.js";
import { tokenAad as exchangeLinkTokenAad } from "../exchange-accounts/link.js";
import { exchangeCredentialAad } from "../exchanges/service.js";
import { totpSecretAad } from "../mfa/totp-devices.js";
import { tokenAad as oauthAccountTokenAad } from "../oauth/sign-in.js";
import { clientSecretAad } from "../providers/service.js";
import { ssoClientSecretAad } from "../sso/service.js";
import { otpCodeAad } from "../test-accounts/service.js";
import { oauthTokenAad } from "../users/service.js";
import { secretAad as waasSessionSecretAad } from "../waas/custodial/session.js";
import { keyOwner as waasWalletKeyOwner } from "../waas/custodial/wallets.js";
import { backupAad } from "../waas/threshold/backup-vault.js";
import { roomKeyAad } from "../waas/threshold/rooms.js";
import { noncesAad } from "../waas/threshold/signing.js";
import { serverShareAad } from "../waas/threshold/share-sets.js";
import { webhookSecretAad } from "../webhooks/secret.js";

/**
 * Which configured keys seal a column: the sealing keys (SIGIL_SEALING_KEYS, deps.sealer) or the backup
 * sealing keys (SIGIL_BACKUP_SEALING_KEYS, deps.backupSealer), rotated each on its own.
 */
export type KeySet = "sealing" | "backup";

/**
 * A column that holds sealed values (src/crypto/seal.ts), with what it takes to reseal one in place: the
 * row's identity, and the associated data that binds the value to its row — computed by the same function
 * the code that seals it uses, so the two cannot drift apart.
 */
export interface SealedColumn extends SealedColumnLocation {
  keySet: KeySet;
  aad(row: Record<string, unknown>): string;
}

const byId = [{ name: "id", type: "uuid" }] as const;
const str = (row: Record<string, unknown>, column: string) => String(row[column]);

/** One column sealed under the sealing keys, its rows named by `id`, its aad made of `id` alone. */
const byOwnId = (table: string, column: string, aad: (id: string) => string): SealedColumn => ({
  table,
  column,
  key: byId,
  reads: ["id"],
  keySet: "sealing",
  aad: (row) => aad(str(row, "id")),
});

/**
 * Every sealed column of the schema. A column added without an entry here is never resealed, so an old key
 * could not be removed: test/domain/sealing/registry.test.ts scans a database the e2e flows filled for values
 * of the sealed shape and fails on any column this list lacks.
 */
export const SEALED_COLUMNS: readonly SealedColumn[] = [
  byOwnId("providers", "client_secret_sealed", clientSecretAad),
  byOwnId("sso_providers", "client_secret_sealed", ssoClientSecretAad),
  byOwnId("environment_signing_keys", "private_key_sealed", signingKeyAad),
  byOwnId("verified_credentials", "oauth_access_token_sealed", (id) => oauthTokenAad(id, "access")),
  byOwnId("verified_credentials", "oauth_refresh_token_sealed", (id) => oauthTokenAad(id, "refresh")),
  ...(["access_token", "refresh_token", "id_token"] as const).map(
    (which): SealedColumn => ({
      table: "oauth_account_tokens",
      column: `${which}_sealed`,
      key: [{ name: "credential_id", type: "uuid" }],
      reads: ["credential_id"],
      keySet: "sealing",
      aad: (row) => oauthAccountTokenAad(str(row, "credential_id"), which),
    }),
  ),
  {
    table: "embedded_wallet_keys",
    column: "private_key_sealed",
    key: byId,
    reads: ["wallet_id"],
    keySet: "sealing",
    aad: (row) => walletKeyAad(`wallet:${str(row, "wallet_id")}`),
  },
  {
    table: "embedded_wallet_passcodes",
    column: "passcode_sealed",
    key: [
      { name: "environment_id", type: "uuid" },
      { name: "wallet_id", type: "uuid" },
    ],
    reads: ["wallet_id"],
    keySet: "sealing",
    aad: (row) => passcodeAad(str(row, "wallet_id")),
  },
  byOwnId("waas_wallets", "private_key_sealed", (id) => walletKeyAad(waasWalletKeyOwner(id))),
  byOwnId("waas_session_keys", "secret_sealed", waasSessionSecretAad),
  ...(["api_key", "api_secret", "passphrase"] as const).map((credential) =>
    byOwnId("exchanges", `${credential}_sealed`, (id) => exchangeCredentialAad(id, credential)),
  ),
  ...(["access_token", "refresh_token"] as const).map(
    (token): SealedColumn => ({
      table: "exchange_account_links",
      column: `${token}_sealed`,
      key: byId,
      reads: ["exchange_id", "user_id"],
      keySet: "sealing",
      aad: (row) => exchangeLinkTokenAad(str(row, "exchange_id"), str(row, "user_id"), token),
    }),
  ),
  byOwnId("test_accounts", "otp_code_sealed", otpCodeAad),
  byOwnId("webhooks", "secret_sealed", webhookSecretAad),
  byOwnId("user_mfa_devices", "totp_secret_sealed", totpSecretAad),
  {
    table: "waas_share_set_shares",
    column: "share_sealed",
    key: [
      { name: "share_set_id", type: "uuid" },
      { name: "holder_index", type: "integer" },
    ],
    reads: ["share_set_id", "holder_index"],
    keySet: "sealing",
    aad: (row) => serverShareAad(str(row, "share_set_id"), Number(row.holder_index)),
  },
  {
    table: "waas_share_backups",
    column: "share_sealed",
    key: byId,
    reads: ["environment_id", "wallet_id", "share_set_epoch", "holder"],
    keySet: "backup",
    aad: (row) =>
      backupAad(str(row, "environment_id"), { walletId: str(row, "wallet_id"), shareSetEpoch: Number(row.share_set_epoch), holder: Number(row.holder) }),
  },
  byOwnId("waas_rooms", "server_key_sealed", roomKeyAad),
  byOwnId("waas_rooms", "server_nonces_sealed", noncesAad),
];

/** The name an entry goes by in reports: `table.column`. */
export const sealedColumnName = (c: Pick<SealedColumn, "table" | "column">) => `${c.table}.${c.column}`;
