import { randomBytes } from "node:crypto";
import { CompactEncrypt } from "jose";
import { openWalletKey } from "../../crypto/wallet-keys.js";
import * as embedded from "../../db/repositories/embedded-wallets.js";
import { notFound } from "../../errors.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import { endUserAccess } from "../sessions/service.js";
import { requireFreshFactor } from "../waas/threshold/device-caller.js";
import type { WalletCaller } from "./sdk-wallets.js";

/**
 * The passcode and the backup of the caller's V1 embedded wallet (the published client's EmbeddedWalletSecret,
 * source "dynamic": the service made the secret). The passcode is 192 random bits made on first request and
 * kept sealed, bound to the wallet; the backup is the wallet's private key as a JWE (PBES2-HS512+A256KW,
 * A256GCM) under that passcode, so the two open the key offline, without the service. Together they amount
 * to an export, so each read is audited (embedded_wallet.passcode_read / embedded_wallet.backup_read), and the
 * backup, the half that carries the key, is gated as an export is (a fresh factor where the environment
 * requires one for wallet.waas.export): a stolen session alone cannot assemble the key.
 *
 * The wallet is the caller's first live embedded wallet whose key the service holds (the client names none).
 */

export const passcodeAad = (walletId: string) => `wallet:${walletId}:passcode`;

/** The passcode is random and long: the PBES2 iterations guard nothing a guess could reach; jose's floor will do. */
const PBES2_ITERATIONS = 10_000;

async function callersKeyedWallet(deps: Deps, c: WalletCaller) {
  for (const id of await embedded.userEmbeddedWalletIds(deps.db, c.env.environmentId, c.principal.userId)) {
    const key = await embedded.findEmbeddedWalletKey(deps.db, c.env.environmentId, id);
    if (key) return key;
  }
  throw notFound("embedded wallet");
}

async function passcodeOf(deps: Deps, environmentId: string, walletId: string): Promise<string> {
  const fresh = deps.sealer.seal(randomBytes(24).toString("base64url"), passcodeAad(walletId));
  return deps.sealer.open(await embedded.ensurePasscode(deps.db, environmentId, walletId, fresh), passcodeAad(walletId));
}

async function read(deps: Deps, c: WalletCaller, what: "passcode" | "backup", walletId: string) {
  await audited(deps, endUserAccess(c.env, c.principal.userId, c.meta.requestId), (_t, record) =>
    record({ action: `embedded_wallet.${what}_read`, resourceType: "wallet", resourceId: walletId, after: { id: walletId, userId: c.principal.userId } }),
  );
}

export async function walletPasscode(deps: Deps, c: WalletCaller) {
  const key = await callersKeyedWallet(deps, c);
  const secret = await passcodeOf(deps, c.env.environmentId, key.walletId);
  await read(deps, c, "passcode", key.walletId);
  return { walletId: key.walletId, secret, source: "dynamic" };
}

export async function walletBackup(deps: Deps, c: WalletCaller, mfaToken: string | null) {
  await requireFreshFactor(deps, { ...c, mfaToken }, "wallet.waas.export", { recentSignIn: true });
  const key = await callersKeyedWallet(deps, c);
  const passcode = await passcodeOf(deps, c.env.environmentId, key.walletId);
  const privateKey = openWalletKey(deps.sealer, key.privateKeySealed, `wallet:${key.walletId}`);
  try {
    const secret = await new CompactEncrypt(privateKey)
      .setProtectedHeader({ alg: "PBES2-HS512+A256KW", enc: "A256GCM", p2c: PBES2_ITERATIONS, kid: key.walletId })
      .encrypt(new TextEncoder().encode(passcode));
    await read(deps, c, "backup", key.walletId);
    return { walletId: key.walletId, secret, source: "dynamic" };
  } finally {
    privateKey.fill(0);
  }
}
