import { CompactEncrypt, importSPKI, type CryptoKey } from "jose";
import type { ActiveEncryptionKey } from "../../db/repositories/webhook-outbox.js";

/**
 * Encrypted payloads. When an environment has registered an encryption public key (WaaS delegated access,
 * operation 3), sensitive fields of an event's `data` are encrypted to its newest active key when the
 * message is built, and the envelope names the key by `kid`.
 *
 * Each sensitive field keeps its place and its value is replaced by `{ "encrypted": "<JWE compact>" }`; the
 * JWE plaintext is the JSON of the original value (so `JSON.parse(plaintext)` gives it back). Both
 * registered algorithms produce the same JWE: `alg: RSA-OAEP-256` wraps a fresh AES-256 key, `enc: A256GCM`
 * encrypts the value (RSA + AES-256-GCM, i.e. the hybrid scheme; plain RSA-OAEP could not hold values
 * longer than ~190 bytes). The protected header carries `kid` too.
 */

/** Fields encrypted wherever they appear in `data` (at any depth): personal data and key material. */
export const SENSITIVE_FIELDS: ReadonlySet<string> = new Set([
  "email",
  "phoneNumber",
  "privateKey",
  "mnemonic",
  "seedPhrase",
  "recoveryPhrase",
  "keyShare",
  "keyShares",
  "exportedKey",
]);

/** Further fields encrypted for some events. */
export const SENSITIVE_BY_EVENT: Readonly<Record<string, readonly string[]>> = {
  "user.created": ["firstName", "lastName"],
  "user.updated": ["firstName", "lastName"],
  "user.deleted": ["firstName", "lastName"],
  "wallet.exported": ["export", "secret"],
  "embedded_wallet.pregenerated": ["identifier"],
};

export const ENCRYPTION_ALGS = new Set(["RSA-OAEP-256", "HYBRID-RSA-AES-256"]);

const keyCache = new Map<string, Promise<CryptoKey>>();

function publicKey(pem: string): Promise<CryptoKey> {
  let k = keyCache.get(pem);
  if (!k) {
    k = importSPKI(pem, "RSA-OAEP-256");
    k.catch(() => keyCache.delete(pem));
    if (keyCache.size > 500) keyCache.clear();
    keyCache.set(pem, k);
  }
  return k;
}

async function encryptValue(value: unknown, key: CryptoKey, kid: string): Promise<{ encrypted: string }> {
  const jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(value)))
    .setProtectedHeader({ alg: "RSA-OAEP-256", enc: "A256GCM", kid, cty: "application/json" })
    .encrypt(key);
  return { encrypted: jwe };
}

/**
 * `data` with its sensitive fields encrypted to `key`; `encrypted` says whether any field was (the envelope
 * names the kid only then). Values that are null or absent stay as they are.
 */
export async function encryptSensitiveFields(
  eventName: string,
  data: Record<string, unknown>,
  key: ActiveEncryptionKey,
): Promise<{ data: Record<string, unknown>; encrypted: boolean }> {
  if (!ENCRYPTION_ALGS.has(key.alg)) return { data, encrypted: false };
  const names = new Set([...SENSITIVE_FIELDS, ...(SENSITIVE_BY_EVENT[eventName] ?? [])]);
  const cryptoKey = await publicKey(key.publicKeyPem);
  let encrypted = false;
  const walk = async (v: unknown, depth: number): Promise<unknown> => {
    if (depth > 8 || v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return Promise.all(v.map((x) => walk(x, depth + 1)));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (names.has(k) && x !== null && x !== undefined) {
        out[k] = await encryptValue(x, cryptoKey, key.kid);
        encrypted = true;
      } else out[k] = await walk(x, depth + 1);
    }
    return out;
  };
  const result = (await walk(data, 0)) as Record<string, unknown>;
  return { data: result, encrypted };
}
