/**
 * `npm run -s dev:device -- <command>`: plays the user's device for WaaS wallets by hand
 * (docs/guide/threshold-wallets.md), as the tests' device does (test/support/waas-device.ts): it makes the
 * device's keygen keys, keeps its key shares sealed under a passcode in a local file, and posts its part into a room. The
 * operations themselves are the published client's, called with curl.
 *
 *   SIGIL_ENV (environment id)  SIGIL_JWT (the user's session JWT)
 *   SIGIL_URL (default: the `npm start` running on SIGIL_DATA_DIR, default ./data, found through its run.json)
 *   SIGIL_PASSCODE (seals the shares; default 1234)  SIGIL_DEVICE_FILE (default .sigil-device.json)
 *
 *   keygen-ids [n]                 new keygen ids (P-256 public keys) for createWaasAccount / reshare
 *   receive <roomId>               takes this device's shares from a finished room (create)
 *   contribute <roomId> [--key K]  posts the device's part (sign, refresh, reshare, export; import with --key)
 *   backup-credentials             the shares as encryptedAccountCredentials (sealed by the passcode)
 *   restore <json array>           puts recovered credentials back (recoverKeyShares' encryptedAccountCredential)
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { dataDirOf } from "../src/config.js";
import { NoRunningSigil, requireRunning } from "../src/infra/run-state.js";
import { TestDevice, type RoomView } from "../test/support/waas-device.js";

/** Asked only by the commands that call the service (keygen-ids and backup-credentials stay offline). */
const base = () => (process.env.SIGIL_URL ?? requireRunning(dataDirOf()).baseUrl).replace(/\/$/, "");
const env = process.env.SIGIL_ENV ?? "";
const jwt = process.env.SIGIL_JWT ?? "";
const passcode = process.env.SIGIL_PASSCODE ?? "1234";
const file = process.env.SIGIL_DEVICE_FILE ?? ".sigil-device.json";

const device = existsSync(file) ? TestDevice.fromJSON(JSON.parse(readFileSync(file, "utf8")), passcode) : new TestDevice(passcode);
const save = () => writeFileSync(file, JSON.stringify(device), { mode: 0o600 });

/** How many times the device waits out the service's request-rate bound before it gives up. */
const RATE_LIMIT_RETRIES = 5;

async function relay(method: "GET" | "POST", path: string, body?: unknown): Promise<RoomView> {
  if (!env || !jwt) throw new Error("set SIGIL_ENV and SIGIL_JWT");
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${base()}/api/v0/sdk/${env}/waas/rooms/${path}`, {
      method,
      headers: { authorization: `Bearer ${jwt}`, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = await res.json();
    if (res.ok) return json as RoomView;
    // Over the SDK's per-address request bound (rate_limited, not a factor's lockout): the service says how long
    // to wait, and the request changed nothing, so a device waits and asks again, as a client should.
    const wait = Number(res.headers.get("retry-after") ?? json?.payload?.retryAfterSeconds);
    if (res.status !== 429 || json?.code !== "rate_limited" || !(wait >= 0) || attempt >= RATE_LIMIT_RETRIES) {
      throw new Error(`${res.status} ${JSON.stringify(json)}`);
    }
    console.error(`rate limited: asking again in ${wait} s`);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
}

/** What the device prints after an operation: the wallet, or what the operation made. */
async function settle(room: RoomView): Promise<unknown> {
  const r = room.result ?? {};
  if (r.shareSet) {
    await device.receive(r.shareSet);
    save();
    return { walletId: room.walletId, address: r.address, epoch: r.shareSet.epoch, scheme: `${r.shareSet.threshold}-of-${r.shareSet.holders}` };
  }
  return r;
}

const { positionals, values } = parseArgs({ allowPositionals: true, options: { key: { type: "string" } } });
const [command, arg] = positionals;
try {
  await run();
} catch (err) {
  // A missing service is a plain message, not a stack.
  console.error(err instanceof NoRunningSigil ? err.message : err);
  process.exit(1);
}

async function run(): Promise<void> {
  switch (command) {
    case "keygen-ids": {
      const ids = device.keygenIds(Number(arg ?? 1));
      save();
      console.log(JSON.stringify(ids));
      break;
    }
    case "receive":
      console.log(JSON.stringify(await settle(await relay("GET", arg!))));
      break;
    case "contribute": {
      const room = await relay("GET", arg!);
      let part: Record<string, unknown>;
      let exportKey: ReturnType<typeof TestDevice.exportKey> | undefined;
      if (room.operation === "import") part = await TestDevice.importContribution(room, values.key ?? "");
      else if (room.request.scheme === "frost-ed25519") part = device.frostContribution(room);
      else if (room.operation === "export") {
        exportKey = TestDevice.exportKey();
        part = { ...(await device.sharesContribution(room)), exportKey: exportKey.publicJwk };
      } else part = await device.sharesContribution(room);
      const done = await relay("POST", `${arg}/contribution`, { contribution: part });
      console.log(JSON.stringify(exportKey ? await exportKey.open(done.result!.encryptedKey) : await settle(done)));
      break;
    }
    case "backup-credentials":
      console.log(JSON.stringify(device.backupCredentials()));
      break;
    case "restore":
      device.restore(JSON.parse(arg!));
      save();
      console.log(JSON.stringify({ restored: device.holderIndexes() }));
      break;
    default:
      console.error("usage: npm run -s dev:device -- keygen-ids [n] | receive <roomId> | contribute <roomId> [--key hex] | backup-credentials | restore <json>");
      process.exit(2);
  }
}
