import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import type { ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { registerHealth, type HealthStatus } from "../../src/rpc/health.js";

/** Statuses the test flips; a name missing here is unknown to the server. */
const statuses = new Map<string, HealthStatus>();
const lookups: string[] = [];
async function getStatus(service: string): Promise<HealthStatus> {
  lookups.push(service);
  return statuses.get(service) ?? "SERVICE_UNKNOWN";
}

interface HealthClient extends grpc.Client {
  Check(req: { service: string }, cb: (err: grpc.ServiceError | null, res?: { status: string }) => void): void;
  Watch(req: { service: string }): grpc.ClientReadableStream<{ status: string }>;
}

let fastServer: http2.Http2Server;
let defaultServer: http2.Http2Server;
let fast: HealthClient;
let slow: HealthClient;

async function start(routes: (router: ConnectRouter) => void) {
  const server = http2.createServer(connectNodeAdapter({ routes }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const def = protoLoader.loadSync("health/v1/health.proto", {
    includeDirs: ["node_modules/grpc-health-check/proto"],
    keepCase: true,
    enums: String,
    defaults: true,
  });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    grpc: { health: { v1: { Health: new (addr: string, creds: grpc.ChannelCredentials) => HealthClient } } };
  };
  const client = new pkg.grpc.health.v1.Health(`127.0.0.1:${(server.address() as AddressInfo).port}`, grpc.credentials.createInsecure());
  return { server, client };
}

const check = (client: HealthClient, service: string) =>
  new Promise<string>((resolve, reject) => client.Check({ service }, (err, res) => (err ? reject(err) : resolve(res!.status))));

/** Collects Watch messages until `count` arrived, then cancels the call. */
function watch(client: HealthClient, service: string, count: number, onMessage?: (n: number) => void) {
  return new Promise<string[]>((resolve, reject) => {
    const seen: string[] = [];
    const call = client.Watch({ service });
    call.on("data", (res: { status: string }) => {
      seen.push(res.status);
      onMessage?.(seen.length);
      if (seen.length === count) {
        call.cancel();
        resolve(seen);
      }
    });
    call.on("error", (err: grpc.ServiceError) => {
      if (err.code !== grpc.status.CANCELLED) reject(err);
    });
  });
}

beforeAll(async () => {
  ({ server: fastServer, client: fast } = await start((r) => registerHealth(r, getStatus, { pollIntervalMs: 50 })));
  ({ server: defaultServer, client: slow } = await start((r) => registerHealth(r, getStatus)));
});

afterAll(async () => {
  fast.close();
  slow.close();
  await Promise.all([fastServer, defaultServer].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

beforeEach(() => {
  statuses.clear();
  statuses.set("", "SERVING");
  lookups.length = 0;
});

describe("grpc.health.v1.Health over a real h2c server", () => {
  it("Check reports the overall and per-service status", async () => {
    statuses.set("sigil.tokens.v0.TokensService", "NOT_SERVING");
    expect(await check(fast, "")).toBe("SERVING");
    expect(await check(fast, "sigil.tokens.v0.TokensService")).toBe("NOT_SERVING");
  });

  it("Check answers NOT_FOUND for an unknown service", async () => {
    await expect(check(fast, "no.such.Service")).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  it("Watch sends the current status, then only changes, and stops polling once cancelled", async () => {
    statuses.set("svc", "SERVING");
    const seen = await watch(fast, "svc", 2, (n) => {
      if (n === 1) setTimeout(() => statuses.set("svc", "NOT_SERVING"), 200);
    });
    // Several polls saw SERVING before the flip, yet only one SERVING message was sent.
    expect(seen).toEqual(["SERVING", "NOT_SERVING"]);
    expect(lookups.filter((s) => s === "svc").length).toBeGreaterThan(3);

    // Nothing to wait for: the test is that no poll follows the cancel (a poll in flight may still land first).
    await new Promise((r) => setTimeout(r, 300));
    const afterCancel = lookups.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(lookups.length).toBe(afterCancel);
  });

  it("Watch reports an unknown service in-band and follows it when it appears", async () => {
    const seen = await watch(fast, "later", 2, (n) => {
      if (n === 1) statuses.set("later", "SERVING");
    });
    expect(seen).toEqual(["SERVICE_UNKNOWN", "SERVING"]);
  });

  it("Watch polls every 2 seconds by default", async () => {
    statuses.set("svc", "SERVING");
    let firstAt = 0;
    const seen = await watch(slow, "svc", 2, (n) => {
      if (n !== 1) return;
      firstAt = Date.now();
      statuses.set("svc", "NOT_SERVING");
    });
    const waited = Date.now() - firstAt;
    expect(seen).toEqual(["SERVING", "NOT_SERVING"]);
    expect(waited).toBeGreaterThanOrEqual(1800);
    expect(waited).toBeLessThan(4000);
  });
});
