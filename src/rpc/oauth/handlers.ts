import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { badRequest } from "../../errors.js";
import type { Deps } from "../../domain/deps.js";
import { beginAuthorization, resumeAuthorization, startOauthAuthorization, type OauthStarter } from "../../domain/oauth/authorize.js";
import { finishAuthorization } from "../../domain/oauth/callback.js";
import { renderRedirectPage } from "../../domain/oauth/page.js";
import { linkOauthAccount, oauthResult, ownOauthAccessToken, signInWithOauth, type OauthCodeInput } from "../../domain/oauth/sign-in.js";
import type { PublicEnvironment } from "../../domain/tenancy/access.js";
import { OauthService, type OauthCodeProof } from "../../gen/sigil/oauth/v0/oauth_service_pb.js";
import { clientMetaOf, endUserOf } from "../context.js";
import { toSignIn } from "../sessions/mappers.js";
import { publicEnvironmentOf } from "../tenant-context.js";

/** A browser page; with a location the REST gateway answers 303 See Other (src/gateway/index.ts). */
function page(ctx: HandlerContext, message: string, location: string | null) {
  const { html, headers } = renderRedirectPage(message, location);
  for (const [name, value] of Object.entries(headers)) ctx.responseHeader.set(name, value);
  if (location) ctx.responseHeader.set("location", location);
  return { page: { contentType: "text/html; charset=utf-8", data: new TextEncoder().encode(html) } };
}

/**
 * The authorization URL for a state initAuth started, or of a new authorization started by `startedBy`
 * (an API call gets the flow's verifier back with the URL; a browser navigation cannot).
 */
async function loginUrl(deps: Deps, env: PublicEnvironment, req: { providerType: string; state: string; redirectUrl: string }, startedBy: OauthStarter) {
  if (req.state) return { url: await resumeAuthorization(deps, env, req.providerType, req.state), codeVerifier: "" };
  const a = await beginAuthorization(deps, env, { providerType: req.providerType, redirectUri: req.redirectUrl || undefined, startedBy });
  return { url: a.authorizationUrl, codeVerifier: a.clientVerifier ?? "" };
}

async function callback(deps: Deps, ctx: HandlerContext, providerType: string, params: URLSearchParams) {
  const done = await finishAuthorization(deps, publicEnvironmentOf(ctx), providerType, params);
  const message =
    "error" in done.result
      ? "Sign-in failed. You can close this window."
      : done.redirectTo
        ? "Signed in. You can close this window."
        : "Signed in at the provider, but this sign-in named no page of the app to return to: start it again from the app.";
  return page(ctx, message, done.redirectTo);
}

const codeInput = (proof: OauthCodeProof | undefined): OauthCodeInput => ({
  code: proof?.code ?? "",
  state: proof?.state ?? "",
  codeVerifier: proof?.codeVerifier || undefined,
});

export function registerOauth(router: ConnectRouter, deps: Deps) {
  router.service(OauthService, {
    async oauthAuthorizeHtml(req, ctx) {
      const { html, headers } = await startOauthAuthorization(deps, publicEnvironmentOf(ctx), {
        providerType: req.providerType,
        redirectUri: req.redirectUri || undefined,
        state: req.state || undefined,
      });
      // The REST gateway passes these on with the page (src/gateway/index.ts FORWARDED_RESPONSE_HEADERS).
      for (const [name, value] of Object.entries(headers)) ctx.responseHeader.set(name, value);
      return { page: { contentType: "text/html; charset=utf-8", data: new TextEncoder().encode(html) } };
    },
    async initAuth(req, ctx) {
      const auth = req.auth!;
      const started = await beginAuthorization(deps, publicEnvironmentOf(ctx), {
        providerType: req.providerType,
        state: auth.state,
        redirectUri: auth.redirectUrl || undefined,
        startedBy: "api",
      });
      return { codeVerifier: started.clientVerifier ?? "" };
    },
    async oauthLoginUrl(req, ctx) {
      return loginUrl(deps, publicEnvironmentOf(ctx), req, "api");
    },
    async oauthLogin(req, ctx) {
      return page(ctx, "Continue to sign in", (await loginUrl(deps, publicEnvironmentOf(ctx), req, "browser")).url);
    },
    async oauthRedirectCode(req, ctx) {
      const params = new URLSearchParams();
      for (const [k, v] of [
        ["code", req.code],
        ["state", req.state],
        ["scope", req.scope],
        ["error", req.error],
        ["error_description", req.errorDescription],
        ["iss", req.iss],
        ["session_state", req.sessionState],
      ] as const)
        if (v) params.set(k, v);
      return callback(deps, ctx, req.providerType, params);
    },
    async oauthRedirectPartner(req, ctx) {
      const form = req.form;
      if (!form || !/^application\/x-www-form-urlencoded\b/i.test(form.contentType))
        throw badRequest("unsupported_media_type", "the form_post callback takes application/x-www-form-urlencoded");
      const posted = new URLSearchParams(new TextDecoder().decode(form.data));
      // Only the authorization response's own parameters go on to the code exchange.
      const params = new URLSearchParams();
      for (const k of ["code", "state", "error", "error_description", "iss"]) {
        const v = posted.get(k);
        if (v) params.set(k, v.slice(0, 4096));
      }
      return callback(deps, ctx, "partner", params);
    },
    async oauthResult(req, ctx) {
      const r = await oauthResult(deps, publicEnvironmentOf(ctx), req.providerType, req.result!.state);
      return { status: r.status, error: "error" in r ? r.error : "" };
    },
    async oauthSignIn(req, ctx) {
      const r = await signInWithOauth(deps, publicEnvironmentOf(ctx), req.providerType, codeInput(req.proof), clientMetaOf(ctx));
      return { signIn: toSignIn(r.tokens, r.user, { newUser: r.newUser }) };
    },
    async oauthVerify(req, ctx) {
      const r = await linkOauthAccount(deps, publicEnvironmentOf(ctx), endUserOf(ctx), req.providerType, codeInput(req.proof), clientMetaOf(ctx));
      return { signIn: toSignIn(r.tokens, r.user) };
    },
    async getEndUserOauthAccessToken(req, ctx) {
      return { accessToken: await ownOauthAccessToken(deps, publicEnvironmentOf(ctx), endUserOf(ctx), req.oauthAccountId) };
    },
  });
}
