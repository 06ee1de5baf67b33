import ipaddr from "ipaddr.js";

/**
 * Sign-in calls per client address per minute under `npm start` (the dev role) when only this machine can
 * reach it. The per-address limit slows one remote address guessing codes or spraying sign-ins among many
 * users; on loopback every client (the developer's browser, their app's tests, the README's walk-through)
 * is the same address, so the production bound (10) throttles the developer and protects nobody. The bounds
 * keyed on what is signed into (code sends per e-mail or phone, wrong codes per identifier, factor
 * lockouts, SMS budgets) stay as they are.
 */
export const DEV_SIGN_IN_RATE_LIMIT_PER_MINUTE = 100;

function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  return ipaddr.isValid(bare) && ipaddr.process(bare).range() === "loopback";
}

/**
 * The settings of the dev role: the environment, with the sign-in limit above as its default when the API
 * listens on loopback (HOST, default 127.0.0.1) and trusts no proxy (behind one, clients are other machines).
 * A value the operator set always wins; the production roles (api, worker) never come through here.
 */
export function devRoleEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.SIGIL_SIGN_IN_RATE_LIMIT_PER_MINUTE !== undefined || env.SIGIL_TRUSTED_PROXIES) return env;
  if (!isLoopback(env.HOST || "127.0.0.1")) return env;
  return { ...env, SIGIL_SIGN_IN_RATE_LIMIT_PER_MINUTE: String(DEV_SIGN_IN_RATE_LIMIT_PER_MINUTE) };
}
