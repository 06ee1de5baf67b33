/**
 * `npm run bench:oidc`: OpenID Connect sign-ins per second (issue 13) against a local OpenID Provider
 * (oidc-provider on loopback, in this process), beside the provider's own rate for the same sign-ins as the
 * baseline, taking turns (BENCH_ROUNDS, default 4), BENCH_SECONDS per side (default 10), BENCH_CONNECTIONS
 * concurrent callers (default 10); BENCH_SECONDS is split over the rounds.
 *
 *   Sigil      the whole flow minus the human: GET loginUrl with the app's redirect URL (state, PKCE,
 *              nonce, the flow's verifier digest stored), the provider's /auth with the caller's provider
 *              session and grant already there (each caller logged in and consented once before the run)
 *              -> 303 to Sigil's callback, the callback (code redeemed with the PKCE verifier, ID token
 *              validated against the provider's cached keys, userinfo read, Sigil's code stored) -> 303 to
 *              the app's page with Sigil's code, POST signIn with the code and the flow's verifier (the
 *              pipeline: returning user, session opened, provider tokens sealed). One sign-in = these 4
 *              requests (Sigil's code reaches the app by its redirect, never by polling oauthResult).
 *   baseline   the provider alone for one sign-in: /auth with the same session and grant -> code, then its
 *              token endpoint (PKCE, client_secret_post) -> access and ID tokens.
 *
 * Sigil runs as `sigil start api` beside `sigil start worker`, on a database of the bench's own (dropped at
 * the end), every rate limit off. Print-only: the lead records the numbers in docs/benchmarks.md.
 *
 *   DATABASE_URL=... REDIS_URL=... TEMPORAL_ADDRESS=... npm run bench:oidc
 */
import { createHash, randomBytes } from "node:crypto";
import { bootstrapTenant } from "../src/domain/tenancy/bootstrap.js";
import { approveAtProvider, Browser } from "../test/e2e/support/browser.js";
import { startOidcPeer } from "../test/e2e/support/oidc-peer.js";
import { benchDeployment } from "./support/deps.js";
import { seconds } from "./support/env.js";
import { callLoad, type Result } from "./support/load.js";
import { startSigil, type Running } from "./support/processes.js";

const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const port = Number(process.env.BENCH_PORT ?? 18400);
const base = `http://127.0.0.1:${port}`;

const { database, childEnv, deps } = await benchDeployment("oidc", { PUBLIC_URL: base });
const running: Running[] = [];

try {
  const tenant = await bootstrapTenant(deps.db);
  const env = tenant.environmentId;
  const sdk = `${base}/api/v0/sdk/${env}`;
  const callback = `${sdk}/providers/oidc/redirect`;
  const baselineCallback = "http://127.0.0.1:1/baseline-callback";
  const idp = await startOidcPeer({ redirectUris: [callback, baselineCallback] });
  running.push(await startSigil("worker", port + 10, [], childEnv));
  running.push(await startSigil("api", port, [], childEnv));
  const created = await fetch(`${base}/api/v0/environments/${env}/settings/providers`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${tenant.token}` },
    body: JSON.stringify({ provider: "oidc", clientId: idp.clientId, clientSecret: idp.clientSecret, issuer: idp.issuer }),
  });
  if (created.status !== 201) throw new Error(`provider: ${created.status} ${await created.text()}`);
  const appPage = "https://app.bench.example/after-sign-in";
  const origin = await fetch(`${base}/api/v0/environments/${env}/origins`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${tenant.token}` },
    body: JSON.stringify({ origin: new URL(appPage).origin }),
  });
  if (origin.status >= 300) throw new Error(`origin: ${origin.status} ${await origin.text()}`);

  // One browser (cookie jar: provider session and grant) per caller, logged in and consented once.
  const browsers = Array.from({ length: connections }, () => new Browser());
  const publicHost = new URL(base).host;
  const signIn = async (browser: Browser, login: string) => {
    const started = await fetch(`${sdk}/providers/oidc/loginUrl?redirectUrl=${encodeURIComponent(appPage)}`);
    const { url, codeVerifier } = (await started.json()) as { url: string; codeVerifier: string };
    const state = new URL(url).searchParams.get("state")!;
    const at = await approveAtProvider(browser, url, login, publicHost);
    const done = await fetch(at.url, { redirect: "manual" });
    const toApp = done.headers.get("location");
    if (done.status !== 303 || !toApp) throw new Error(`callback ${done.status} ${await done.text()}`);
    await done.arrayBuffer();
    const code = new URL(toApp).searchParams.get("code");
    const r = await fetch(`${sdk}/providers/oidc/signIn`, post({ code, state, codeVerifier }));
    if (r.status !== 200) throw new Error(`signIn ${r.status} ${await r.text()}`);
    await r.arrayBuffer();
  };
  const post = (body: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  await Promise.all(browsers.map((b, i) => signIn(b, `bench-${i}`)));

  const baseline = async (browser: Browser) => {
    const verifier = randomBytes(32).toString("base64url");
    const auth = new URL(`${idp.issuer}/auth`);
    for (const [k, v] of Object.entries({
      response_type: "code",
      client_id: idp.clientId,
      redirect_uri: baselineCallback,
      scope: "openid email profile",
      state: randomBytes(16).toString("base64url"),
      nonce: randomBytes(16).toString("base64url"),
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    }))
      auth.searchParams.set(k, v);
    const at = await approveAtProvider(browser, auth.href, "unused", "127.0.0.1:1");
    const code = new URL(at.url).searchParams.get("code");
    if (!code) throw new Error(`no code at ${at.url}`);
    const token = await fetch(`${idp.issuer}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: baselineCallback, code_verifier: verifier, client_id: idp.clientId, client_secret: idp.clientSecret }),
    });
    if (token.status !== 200) throw new Error(`token ${token.status}`);
    await token.arrayBuffer();
  };

  const load = (work: (b: Browser) => Promise<void>): Promise<Result> => {
    let next = 0;
    const idle = [...browsers];
    return callLoad(
      async () => {
        const b = idle.pop() ?? browsers[next++ % browsers.length]!;
        try {
          await work(b);
        } finally {
          idle.push(b);
        }
      },
      connections,
      seconds / ROUNDS,
    );
  };
  const sigilRuns: Result[] = [];
  const bareRuns: Result[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    bareRuns.push(await load(baseline));
    sigilRuns.push(await load((b) => signIn(b, "unused")));
  }
  const median = (rs: Result[], f: (r: Result) => number) => rs.map(f).sort((a, b) => a - b)[Math.floor(rs.length / 2)]!;
  const line = (name: string, rs: Result[]) =>
    `| ${name} | ${median(rs, (r) => r.rps)} | ${median(rs, (r) => r.p50).toFixed(1)} | ${median(rs, (r) => r.p99).toFixed(1)} | ${rs.reduce((n, r) => n + r.failed, 0)} |`;
  console.log(`\nOIDC sign-ins, ${connections} concurrent callers, ${ROUNDS} rounds x ${(seconds / ROUNDS).toFixed(1)} s per side (median of rounds)`);
  console.log("| side | sign-ins/s | p50 ms | p99 ms | failed |\n|---|---|---|---|---|");
  console.log(line("provider alone (authorize + token endpoint)", bareRuns));
  console.log(line("Sigil (loginUrl, authorize, callback, signIn)", sigilRuns));
  await idp.close();
} finally {
  for (const r of running.reverse()) await r.stop();
  await deps.close();
  await database.drop();
}
