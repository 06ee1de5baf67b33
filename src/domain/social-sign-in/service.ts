import { getAddress } from "viem";
import { DomainError, unprocessable } from "../../errors.js";
import type { EndUserPrincipal } from "../auth/principal.js";
import type { Deps } from "../deps.js";
import { originPatterns } from "../origins/service.js";
import type { ClientMeta } from "../sessions/service.js";
import type { ProvenCredential } from "../sign-in/credentials.js";
import { linkCredential, signInWith, type SignInResult } from "../sign-in/pipeline.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { parseEvmMessage, verifyEvmSignature } from "../wallet-sign-in/evm.js";
import { checkMessageRules } from "../wallet-sign-in/message-rules.js";
import { contractWalletCheck } from "../wallet-sign-in/smart-account.js";
import { takeNonce } from "../wallet-sign-in/nonces.js";
import { observedSignIn } from "../sign-in/observed.js";

/** The provider name of these accounts on the verified credential (an OAuth-like account). */
const PROVIDER = "decentralizedSocial";

/** The client's sign-in request: the signed EIP-4361 message and what the client read from it. */
export interface SocialProofInput {
  address: string;
  domain: string;
  nonce: string;
  message: string;
  signature: string;
}

/** The account the message signs in: a Resources entry `<scheme>://fid/<account id>`. */
const ACCOUNT_RESOURCE = /^[a-z][a-z0-9+.-]*:\/\/fid\/([1-9][0-9]{0,19})$/;

export async function signInWithSocial(deps: Deps, env: PublicEnvironment, input: SocialProofInput, meta: ClientMeta): Promise<SignInResult> {
  return observedSignIn(deps, "social", async () => {
    return signInWith(deps, env, await proveSocialAccount(deps, env, input), meta);
  });
}

export async function linkSocial(deps: Deps, env: PublicEnvironment, principal: EndUserPrincipal, input: SocialProofInput, meta: ClientMeta) {
  return linkCredential(deps, env, principal, await proveSocialAccount(deps, env, input), meta);
}

/**
 * Proves that the caller holds the account: the message is a sign-in message of this environment (its
 * nonce, its origins, in its time window) naming the account, the signature is the message's address's,
 * and the network's hub says that address is the account's custody address. As with wallets, cheap checks
 * come first and the nonce is taken last (of two requests with one nonce, one wins; a forged request
 * cannot burn a real user's nonce).
 */
async function proveSocialAccount(deps: Deps, env: PublicEnvironment, input: SocialProofInput): Promise<ProvenCredential> {
  const environmentId = env.environmentId;
  const hub = deps.socialHub;
  if (!hub) throw new DomainError("forbidden", "sign_in_method_disabled", "decentralized-social sign-in is not configured on this service");
  const message = parseEvmMessage(input.message);
  if (message.nonce !== input.nonce || message.domain !== input.domain || message.address.toLowerCase() !== input.address.toLowerCase())
    throw unprocessable("message_mismatch", "address, domain and nonce must be those of the signed message");
  const accounts = (message.resources ?? []).map((r) => ACCOUNT_RESOURCE.exec(r)?.[1]).filter((id): id is string => !!id);
  if (accounts.length !== 1) throw unprocessable("account_not_named", "the message's Resources must name exactly one account (<scheme>://fid/<id>)");
  const accountId = accounts[0];
  checkMessageRules(message, await originPatterns(deps, environmentId));
  // A custody address may be a smart-contract wallet: checked on the node of the message's Chain ID, as wallet sign-in does.
  await verifyEvmSignature(input.message, input.signature, input.address, contractWalletCheck(deps, env, message.chainId ?? ""));
  const account = await hub.account(accountId).catch((err: unknown) => {
    deps.log.warn("social hub lookup failed", { error: err instanceof Error ? err.message : String(err) });
    throw new DomainError("unavailable", "social_hub_unavailable", "the social network's hub did not answer; retry later");
  });
  if (!account) throw unprocessable("social_account_not_found", "the network knows no account with this id");
  if (getAddress(account.custodyAddress) !== getAddress(input.address))
    throw unprocessable("not_custody_address", "the message was not signed by the account's custody address");
  if (!(await takeNonce(deps.store, environmentId, message.nonce)))
    throw unprocessable("invalid_nonce", "the message's nonce was not issued by this environment, has expired or was already used: get a new nonce");
  return {
    kind: "oauth",
    provider: PROVIDER,
    accountId,
    ...(account.username ? { username: account.username } : {}),
    ...(account.displayName ? { displayName: account.displayName } : {}),
    emails: [],
    photos: account.pfpUrl ? [account.pfpUrl] : [],
    metadata: { custodyAddress: getAddress(account.custodyAddress) },
  };
}
