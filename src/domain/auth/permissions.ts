/**
 * The management permissions a token can carry, one read and one write per area. Tokens get all of them
 * unless created with fewer; the permission an RPC needs is declared on it in the proto
 * ((sigil.options.v0.method).permission), and a test checks that every declared one is listed here.
 */
const AREAS = [
  "tokens",
  "organizations", // organizations, their address, billing, SSO, MFA settings, custom networks
  "projects", // projects and their environments' settings
  "members", // members, roles, ownership
  "invites",
  "users", // users, sessions, OAuth access tokens
  "customFields",
  "wallets",
  "waas",
  "providers", // providers and sign-in settings: allowlists, gates, origins, deeplinks, SDK views, ...
  "settings", // other environment settings: custom hostnames, exchanges, compliance, test account
  "nameServices",
  "globalWallet",
  "webhooks",
  "events",
  "exports",
  "analytics",
  "audit",
] as const;

export const MANAGEMENT_PERMISSIONS: readonly string[] = AREAS.flatMap((a) => [`${a}.read`, `${a}.write`]);

/**
 * What each organization role may do. Owners and admins may do everything (only owners may delegate
 * ownership or delete the organization; the member rules check that), developers everything but
 * managing people, organizations and billing, viewers only read.
 */
const PEOPLE = new Set(["members.write", "invites.write", "organizations.write"]);
export const ROLE_PERMISSIONS: Record<string, readonly string[]> = {
  owner: MANAGEMENT_PERMISSIONS,
  admin: MANAGEMENT_PERMISSIONS,
  developer: MANAGEMENT_PERMISSIONS.filter((p) => !PEOPLE.has(p)),
  viewer: MANAGEMENT_PERMISSIONS.filter((p) => p.endsWith(".read")),
};

export function hasPermission(granted: readonly string[], needed: string): boolean {
  return needed === "" || granted.includes(needed);
}

/** A member's effective permissions through a token: what the token carries and the role allows. */
export function effectivePermissions(tokenPermissions: readonly string[], role: string): string[] {
  const allowed = ROLE_PERMISSIONS[role] ?? [];
  return tokenPermissions.filter((p) => allowed.includes(p));
}
