import { randomUUID } from "node:crypto";
import { generateKeyPairSync } from "node:crypto";
import { generateWalletKey, sealWalletKey } from "../../../src/crypto/wallet-keys.js";
import type { BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import type { TestApp } from "../../support/app.js";

/**
 * WaaS resources for the management matrix: a WaaS wallet and a delegated-access encryption key in the
 * tenant's sandbox environment. `walletId` lets the caller reuse the id of an embedded wallet, so that the
 * one `wallet_id` path variable is real for both /wallets/{walletId} and /waas/{walletId} (the two tables
 * are distinct, so the same UUID may exist in both).
 */
export async function seedWaas(app: TestApp, t: BootstrapResult, walletId: string = randomUUID()): Promise<{ wallet_id: string; key_id: string }> {
  const key = generateWalletKey("evm");
  await app.db.none(
    `INSERT INTO waas_wallets (id, environment_id, chain, address, public_key, private_key_sealed, delegated_access_granted_at)
     VALUES ($1, $2, 'EVM', $3, $4, $5, now())`,
    [walletId, t.environmentId, key.address, key.publicKey, sealWalletKey(app.deps.sealer, key, `waas_wallet:${walletId}`)],
  );
  const keyId = randomUUID();
  const pem = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "pem" }).toString();
  await app.db.none(
    "INSERT INTO encryption_public_keys (id, environment_id, kid, public_key, alg, type) VALUES ($1, $2, $3, $4, 'RSA-OAEP-256', 'external')",
    [keyId, t.environmentId, `seed-${keyId}`.slice(0, 64), pem],
  );
  return { wallet_id: walletId, key_id: keyId };
}
