/**
 * The peer of `npm run bench:sessions` (BENCH_CASES=peer): Better Auth 1.7.25 with its SIWE plugin, set up
 * as its docs say, served over node:http by its own node handler. Its dependencies are this directory's
 * package (package.json, package-lock.json), not Sigil's; the bench installs them (npm ci) when missing.
 *
 *   POST /api/auth/siwe/nonce    {} -> {nonce}: a verification row in Postgres, 15 minutes
 *   POST /api/auth/siwe/verify   {message, signature} -> {token, success, user} and a session cookie: the
 *                                nonce row taken, the message's domain checked, viem's verifyMessage, the
 *                                wallet's user found (or created), a session row written
 *   GET  /healthz                200 once listening (the bench waits for it, as for its baselines)
 *
 * Its tables are created at start by Better Auth's own migration API in DATABASE_URL, a database of the
 * bench's own. Set like Sigil in the bench: its pool as large as Sigil's (20), its rate limit off (a bench
 * measures the path, not the limiter), no telemetry.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import { betterAuth } from "better-auth";
import { generateRandomString } from "better-auth/crypto";
import { getMigrations } from "better-auth/db/migration";
import { toNodeHandler } from "better-auth/node";
import { siwe } from "better-auth/plugins";
import pg from "pg";
import { verifyMessage } from "viem";

const port = Number(process.env.PORT);

const auth = betterAuth({
  baseURL: `http://localhost:${port}`,
  secret: randomBytes(32).toString("base64"),
  database: new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 }),
  rateLimit: { enabled: false },
  telemetry: { enabled: false },
  plugins: [
    siwe({
      domain: "localhost",
      anonymous: true,
      getNonce: async () => generateRandomString(32, "a-z", "A-Z", "0-9"),
      verifyMessage: async ({ message, signature, address }) => {
        try {
          return await verifyMessage({ address: address as `0x${string}`, message, signature: signature as `0x${string}` });
        } catch {
          return false;
        }
      },
    }),
  ],
});

const { runMigrations } = await getMigrations(auth.options);
await runMigrations();

const handler = toNodeHandler(auth);
http
  .createServer((req, res) => {
    if (req.url === "/healthz") return void res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
    void handler(req, res);
  })
  .listen(port, "127.0.0.1");

process.on("SIGTERM", () => process.exit(0));
