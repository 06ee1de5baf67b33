import { timingSafeEqual } from "node:crypto";
import { badRequest, notFound } from "../../errors.js";
import * as repo from "../../db/repositories/oauth.js";
import type { SignedInUserRecord } from "../../db/repositories/user-aggregate.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import type { ClientMeta } from "../sessions/service.js";
import { linkCredential, signInWith } from "../sign-in/pipeline.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { clientVerifierDigest, oauthStateKey } from "./authorize.js";
import { oauthCodeKey, oauthResultKey, proofAad, type IssuerTokens, type OauthProof, type OauthResult } from "./callback.js";
import { observedSignIn } from "../sign-in/observed.js";

export const tokenAad = (credentialId: string, which: string) => `oauth_account:${credentialId}:${which}`;

/**
 * Where the authorization of a state stands (pending, completed, or the error), for an app that waits for
 * it. Never the one-time code: that goes only to the app's redirect URL (callback.ts).
 */
export async function oauthResult(deps: Deps, env: PublicEnvironment, providerType: string, state: string): Promise<OauthResult> {
  const result = await deps.store.get(oauthResultKey(state));
  if (result) {
    // Only the status and the error are read back: nothing else ever leaves through a poll.
    const r = JSON.parse(result) as { status: "pending" | "completed"; error?: string };
    return r.status === "pending" ? { status: "pending" } : r.error ? { status: "completed", error: r.error } : { status: "completed" };
  }
  const pending = await deps.store.get(oauthStateKey(state));
  const p = pending ? (JSON.parse(pending) as { environmentId: string; providerType: string }) : null;
  if (p && p.environmentId === env.environmentId && p.providerType === providerType) return { status: "pending" };
  throw notFound("oauth state");
}

/** What signIn / verify present: Sigil's one-time code, its state, and the flow's client verifier. */
export interface OauthCodeInput {
  code: string;
  state: string;
  codeVerifier?: string;
}

/** Whether the verifier is the one whose digest the flow kept (compared in constant time). */
function verifierMatches(expectedDigest: string, verifier: string | undefined): boolean {
  if (!verifier) return false;
  const given = Buffer.from(clientVerifierDigest(verifier));
  const expected = Buffer.from(expectedDigest);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Takes the one-time code the callback issued (once: GETDEL), for the state it was issued to, in this
 * environment, at this provider, with the verifier of the flow when an API call started it. A replayed,
 * foreign or mismatched code proves nothing; a wrong or missing verifier burns the code too, so it cannot
 * be guessed at.
 */
async function takeProof(deps: Deps, env: PublicEnvironment, providerType: string, input: OauthCodeInput) {
  const raw = input.code ? await deps.store.take(oauthCodeKey(input.code)) : null;
  const proof = raw ? (JSON.parse(raw) as OauthProof) : null;
  if (!proof || proof.environmentId !== env.environmentId || proof.providerType !== providerType || proof.state !== input.state)
    throw badRequest("invalid_oauth_code", "unknown, expired, already used or mismatched code", { field: "code" });
  if (proof.clientVerifierHash && !verifierMatches(proof.clientVerifierHash, input.codeVerifier))
    throw badRequest(
      "invalid_code_verifier",
      "codeVerifier must be the one loginUrl or initAuth answered for this sign-in; the code is used up, start again",
      { field: "codeVerifier" },
    );
  const tokens = JSON.parse(deps.sealer.open(proof.tokensSealed, proofAad(input.code))) as IssuerTokens;
  return { proof, tokens };
}

/**
 * Keeps the issuer's tokens with the account, each sealed to the credential. The account is found in the
 * user the sign-in or link answered (it holds the account once either succeeded): no second lookup.
 */
async function keepTokens(deps: Deps, env: PublicEnvironment, user: SignedInUserRecord, proof: OauthProof, tokens: IssuerTokens) {
  const { provider, accountId } = proof.credential;
  const account = user.credentials.find((c) => c.format === "oauth" && c.oauthProvider === provider && c.oauthAccountId === accountId);
  if (!account) return;
  const seal = (v: string | null, which: string) => (v === null ? null : deps.sealer.seal(v, tokenAad(account.id, which)));
  await repo.saveOauthTokens(deps.db, env.environmentId, account.id, {
    accessTokenSealed: seal(tokens.accessToken, "access_token")!,
    refreshTokenSealed: seal(tokens.refreshToken, "refresh_token"),
    idTokenSealed: seal(tokens.idToken, "id_token"),
    scope: tokens.scope,
    accessTokenExpiresAt: tokens.expiresAt ? new Date(tokens.expiresAt) : null,
  });
}

/** oauthSignIn: the account's user signs in (or is created with it) through the one pipeline. */
export async function signInWithOauth(deps: Deps, env: PublicEnvironment, providerType: string, input: OauthCodeInput, meta: ClientMeta) {
  return observedSignIn(deps, "oauth", async () => {
    const { proof, tokens } = await takeProof(deps, env, providerType, input);
    const result = await signInWith(deps, env, proof.credential, meta);
    await keepTokens(deps, env, result.user, proof, tokens);
    return result;
  });
}

/** oauthVerify: adds the account to the signed-in user (another user's account: 422, then merge). */
export async function linkOauthAccount(
  deps: Deps,
  env: PublicEnvironment,
  principal: EndUserPrincipal,
  providerType: string,
  input: OauthCodeInput,
  meta: ClientMeta,
) {
  const { proof, tokens } = await takeProof(deps, env, providerType, input);
  const result = await linkCredential(deps, env, principal, proof.credential, meta);
  await keepTokens(deps, env, result.user, proof, tokens);
  return result;
}

/** The issuer's access token of one of the signed-in user's own OAuth accounts; anyone else's: 404. */
export async function ownOauthAccessToken(deps: Deps, env: PublicEnvironment, principal: EndUserPrincipal, oauthAccountId: string): Promise<string> {
  const sealed = await repo.findOwnOauthTokens(deps.db, env.environmentId, principal.userId, oauthAccountId);
  if (!sealed) throw notFound("oauth account");
  return deps.sealer.open(sealed.accessTokenSealed, tokenAad(oauthAccountId, "access_token"));
}
