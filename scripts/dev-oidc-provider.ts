/**
 * `npm run dev:oidc -- <environmentId> [sigilUrl]`: a local OpenID Provider (oidc-provider, certified) on
 * http://127.0.0.1:9090 for trying OpenID Connect sign-in by hand (docs/guide/oauth-oidc.md, with
 * the environment's oidc provider). It registers one client whose redirect URI is the environment's Sigil callback, accepts any
 * login and password on its own login page (the account id is the login; e-mail <login>@example.test,
 * verified), and prints the client id and secret to configure the environment's oidc provider with.
 * A sandbox environment may use this plain-http loopback issuer; a live one only accepts https issuers.
 *
 * Sigil's URL is the public URL of the `npm start` running on SIGIL_DATA_DIR (default ./data; its run.json),
 * unless given (second argument, or PUBLIC_URL).
 *
 *   OIDC_PORT=9090 (default) npm run dev:oidc -- 6f1c...-environment-id
 */
import { dataDirOf } from "../src/config.js";
import { NoRunningSigil, requireRunning } from "../src/infra/run-state.js";
import { startOidcPeer } from "../test/e2e/support/oidc-peer.js";

const [environmentId, given = process.env.PUBLIC_URL] = process.argv.slice(2);
if (!environmentId) {
  console.error("usage: npm run dev:oidc -- <environmentId> [sigilUrl]");
  process.exit(2);
}
let sigilUrl: string;
try {
  sigilUrl = given ?? requireRunning(dataDirOf()).publicUrl;
} catch (err) {
  if (!(err instanceof NoRunningSigil)) throw err;
  console.error(err.message);
  process.exit(1);
}
const base = sigilUrl.replace(/\/$/, "");
const peer = await startOidcPeer({
  port: Number(process.env.OIDC_PORT ?? 9090),
  clientId: "sigil-local",
  clientSecret: "sigil-local-secret",
  redirectUris: ["oidc", "partner"].map((kind) => `${base}/api/v0/sdk/${environmentId}/providers/${kind}/redirect`),
});
console.log(
  JSON.stringify(
    {
      issuer: peer.issuer,
      clientId: peer.clientId,
      clientSecret: peer.clientSecret,
      redirectUri: `${base}/api/v0/sdk/${environmentId}/providers/oidc/redirect`,
      login: "any login and password on the provider's page",
    },
    null,
    2,
  ),
);
// The test peer unreferences its connections; keep the process alive until Ctrl-C.
setInterval(() => {}, 1 << 30);
process.on("SIGINT", () => void peer.close().then(() => process.exit(0)));
