/**
 * The management permissions a token can carry. Tokens get all of them unless created with fewer; the
 * permission an RPC needs is declared on it in the proto ((sigil.options.v0.method).permission).
 */
export const MANAGEMENT_PERMISSIONS = [
  "tokens.read",
  "tokens.write",
  "users.read",
  "users.write",
  "wallets.read",
  "wallets.write",
  "providers.read",
  "providers.write",
  "waas.write",
  "invites.read",
  "invites.write",
] as const;

export function hasPermission(granted: readonly string[], needed: string): boolean {
  return needed === "" || granted.includes(needed);
}
