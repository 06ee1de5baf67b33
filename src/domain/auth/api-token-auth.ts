import { DomainError } from "../../errors.js";
import { hashApiToken, looksLikeApiToken } from "../../crypto/api-token.js";
import { findPrincipalByTokenHash, touchTokenLastUsed } from "../../db/repositories/tokens.js";
import { cachedPrincipal, keepPrincipal } from "./principal-cache.js";
import type { TokenPrincipal } from "./principal.js";
import type { Deps } from "../deps.js";

/**
 * Principals are cached briefly in the store so that authentication does not hit Postgres per request, and
 * for a few seconds in process (principal-cache.ts) so that it does not hit the store per request either.
 */
const CACHE_TTL_SECONDS = 30;
export const tokenCacheKey = (hash: Buffer) => `apitoken:${hash.toString("hex")}`;

const unauthenticated = (message: string) => new DomainError("unauthenticated", "unauthorized", message);

/** Resolves `Authorization: Bearer <token>` to the token's principal; inactive or deleted tokens get 401. */
export async function authenticateApiToken(deps: Pick<Deps, "db" | "store">, authorization: string | null): Promise<TokenPrincipal> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  if (!match) throw unauthenticated("missing or malformed Authorization header: expected 'Bearer <API token>'");
  const raw = match[1]!;
  if (!looksLikeApiToken(raw)) throw unauthenticated("invalid API token");
  const hash = hashApiToken(raw);
  const hex = hash.toString("hex");
  const local = await cachedPrincipal(deps.store, hex);
  if (local.principal) return local.principal;
  const key = tokenCacheKey(hash);
  const cached = await deps.store.get(key);
  if (cached) {
    const principal = JSON.parse(cached) as TokenPrincipal;
    keepPrincipal(deps.store, hex, principal, local.epoch);
    return principal;
  }
  const found = await findPrincipalByTokenHash(deps.db, hash);
  if (!found) throw unauthenticated("invalid API token");
  const principal: TokenPrincipal = found;
  await deps.store.set(key, JSON.stringify(principal), CACHE_TTL_SECONDS);
  keepPrincipal(deps.store, hex, principal, local.epoch);
  // Recording use is best effort and throttled in SQL; it never fails a request.
  touchTokenLastUsed(deps.db, found.tokenId).catch(() => {});
  return principal;
}
