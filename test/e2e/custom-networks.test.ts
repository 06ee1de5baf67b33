import { randomUUID } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import path from "node:path";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAcceptableNetworkUrl } from "../../src/domain/custom-networks/service.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { CustomNetworksService } from "../../src/gen/sigil/custom_networks/v0/custom_networks_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

let app: TestApp;
let other: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  other = await app.bootstrap({ ownerEmail: `other-${randomUUID()}@example.com` });
});
afterAll(() => app?.stop());

const tenant = () => app.bootstrap({ ownerEmail: `cn-${randomUUID()}@example.com` });
const listPath = (t: BootstrapResult) => `/organizations/${t.organizationId}/customNetworks`;
const count = async (organizationId: string) =>
  (await app.db.one("SELECT count(*)::int AS n FROM custom_networks WHERE organization_id = $1", [organizationId])).n as number;
const audits = (organizationId: string, action: string) =>
  app.db.any("SELECT * FROM audit_log WHERE organization_id = $1 AND action = $2 ORDER BY created_at", [organizationId, action]);

const network = (over: Record<string, unknown> = {}) => ({
  name: "Acme Chain",
  chainId: 424242,
  rpcUrls: ["https://rpc.acme.example", "http://127.0.0.1:8545"],
  blockExplorerUrls: ["https://scan.acme.example"],
  nativeCurrency: { name: "Acme Ether", symbol: "AETH", decimals: 18 },
  iconUrl: "https://acme.example/icon.png",
  testnet: true,
  ...over,
});

describe("custom networks", () => {
  it("creates (201), reads, lists with count and pages, replaces and deletes; every change audited", async () => {
    const t = await tenant();
    const created = await call(app.baseUrl, "POST", listPath(t), { token: t.token, body: network() });
    expect(created.status, created.text).toBe(201);
    // Wrapped as the published client's CustomNetworkResponse, with its flat fields alongside Sigil's.
    const n = created.body.customNetwork;
    expect(n).toMatchObject({ ...network(), chainId: "424242", organizationId: t.organizationId });
    expect(n).toMatchObject({
      networkType: "EVM",
      chainName: "Acme Chain",
      rpcUrl: "https://rpc.acme.example",
      blockExplorerUrl: "https://scan.acme.example",
      nativeCurrencyName: "Acme Ether",
      nativeCurrencySymbol: "AETH",
      nativeCurrencyIconUrl: "",
      nativeCurrencyDecimals: 18,
    });
    expect(n.id).toMatch(/^[0-9a-f-]{36}$/);
    const get = await call(app.baseUrl, "GET", `${listPath(t)}/${n.id}`, { token: t.token });
    expect(get.status).toBe(200);
    expect(get.body).toEqual({ customNetwork: n });

    // A chain id sent as a decimal string (the proto3 JSON form of int64) is accepted too.
    const second = await call(app.baseUrl, "POST", listPath(t), { token: t.memberToken, body: network({ chainId: "1001", name: "Second", testnet: false }) });
    expect(second.status, second.text).toBe(201);
    const list = await call(app.baseUrl, "GET", listPath(t), { token: t.token });
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(2);
    expect(list.body.customNetworks.map((x: any) => x.customNetwork.name)).toEqual(["Acme Chain", "Second"]);
    const page = await call(app.baseUrl, "GET", `${listPath(t)}?offset=1&limit=1`, { token: t.token });
    expect(page.body).toMatchObject({ count: 2, customNetworks: [{ customNetwork: { name: "Second" } }] });

    const put = await call(app.baseUrl, "PUT", `${listPath(t)}/${n.id}`, {
      token: t.token,
      body: network({ name: "Acme Mainnet", chainId: 424243, testnet: false, blockExplorerUrls: [], iconUrl: "" }),
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.customNetwork).toMatchObject({ id: n.id, name: "Acme Mainnet", chainId: "424243", testnet: false, blockExplorerUrls: [] });
    expect(put.body.customNetwork).toMatchObject({ iconUrl: "", blockExplorerUrl: "" });

    const del = await call(app.baseUrl, "DELETE", `${listPath(t)}/${n.id}`, { token: t.token });
    expect(del.status).toBe(204);
    expect((await call(app.baseUrl, "GET", `${listPath(t)}/${n.id}`, { token: t.token })).status).toBe(404);
    expect((await call(app.baseUrl, "DELETE", `${listPath(t)}/${n.id}`, { token: t.token })).status).toBe(404);

    const [c] = await audits(t.organizationId, "custom_network.created");
    expect(c).toMatchObject({ resource_type: "custom_network", resource_id: n.id, environment_id: null, actor_token_id: t.tokenId });
    const [u] = await audits(t.organizationId, "custom_network.updated");
    expect(u.changes.before.name).toBe("Acme Chain");
    expect(u.changes.after.name).toBe("Acme Mainnet");
    const [d] = await audits(t.organizationId, "custom_network.deleted");
    expect(d.resource_id).toBe(n.id);
  });

  it("answers 409 for a chain id the organization already has (create and update) and changes nothing", async () => {
    const t = await tenant();
    const a = await call(app.baseUrl, "POST", listPath(t), { token: t.token, body: network({ chainId: 10 }) });
    const b = await call(app.baseUrl, "POST", listPath(t), { token: t.token, body: network({ chainId: 11, name: "B" }) });
    expect([a.status, b.status]).toEqual([201, 201]);
    const dup = await call(app.baseUrl, "POST", listPath(t), { token: t.token, body: network({ chainId: 10, name: "dup" }) });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ code: "custom_network_already_exists", error: expect.any(String) });
    const bId = b.body.customNetwork.id;
    const clash = await call(app.baseUrl, "PUT", `${listPath(t)}/${bId}`, { token: t.token, body: network({ chainId: 10, name: "B2" }) });
    expect(clash.status).toBe(409);
    expect((await call(app.baseUrl, "GET", `${listPath(t)}/${bId}`, { token: t.token })).body.customNetwork).toMatchObject({ name: "B", chainId: "11" });
    expect(await count(t.organizationId)).toBe(2);
    expect(await audits(t.organizationId, "custom_network.updated")).toHaveLength(0);
    // Another organization may use the same chain id.
    expect((await call(app.baseUrl, "POST", listPath(other), { token: other.token, body: network({ chainId: 10 }) })).status).toBe(201);
  });

  it("rejects invalid networks with 400 and stores nothing", async () => {
    const t = await tenant();
    const bad: Record<string, unknown>[] = [
      network({ chainId: 0 }),
      network({ chainId: -5 }),
      network({ chainId: 9007199254740993 }),
      network({ chainId: "abc" }),
      network({ chainId: 1.5 }),
      network({ rpcUrls: [] }),
      network({ rpcUrls: ["http://rpc.acme.example"] }), // plain http off loopback
      network({ rpcUrls: ["ws://127.0.0.1:8546"] }),
      network({ rpcUrls: ["not a url"] }),
      network({ rpcUrls: Array.from({ length: 11 }, (_, i) => `https://rpc${i}.example`) }),
      network({ blockExplorerUrls: ["http://scan.acme.example"] }),
      network({ nativeCurrency: { name: "X", symbol: "X", decimals: 37 } }),
      network({ nativeCurrency: { name: "X", symbol: "X", decimals: -1 } }),
      network({ nativeCurrency: { name: "", symbol: "X", decimals: 18 } }),
      network({ nativeCurrency: { name: "X", symbol: "has space", decimals: 18 } }),
      network({ nativeCurrency: undefined }),
      network({ name: "" }),
      network({ iconUrl: "javascript:alert(1)" }),
    ];
    for (const body of bad) {
      const res = await call(app.baseUrl, "POST", listPath(t), { token: t.token, body });
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      expect(res.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
    expect(await count(t.organizationId)).toBe(0);
    const ok = await call(app.baseUrl, "POST", listPath(t), { token: t.token, body: network() });
    for (const body of bad.slice(0, 3)) {
      const res = await call(app.baseUrl, "PUT", `${listPath(t)}/${ok.body.customNetwork.id}`, { token: t.token, body });
      expect(res.status).toBe(400);
    }
    expect((await call(app.baseUrl, "GET", `${listPath(t)}/${ok.body.customNetwork.id}`, { token: t.token })).body).toEqual(ok.body);
    expect(await audits(t.organizationId, "custom_network.created")).toHaveLength(1);
    expect(await audits(t.organizationId, "custom_network.updated")).toHaveLength(0);
    // Edge values that are valid.
    const edge = await call(app.baseUrl, "POST", listPath(t), {
      token: t.token,
      body: network({ chainId: Number.MAX_SAFE_INTEGER, nativeCurrency: { name: "Z", symbol: "Z", decimals: 0 }, rpcUrls: ["http://localhost:8545", "http://[::1]:8545"] }),
    });
    expect(edge.status, edge.text).toBe(201);
    expect(edge.body.customNetwork.nativeCurrency.decimals).toBe(0);
    expect(edge.body.customNetwork.nativeCurrencyDecimals).toBe(0);
  });

  it("accepts the published client's flat request form, and 400s when a required field is in neither form", async () => {
    const t = await tenant();
    const flat = {
      networkType: "EVM",
      chainName: "Flat chain",
      chainId: "5151",
      rpcUrl: "https://rpc.flat.example",
      blockExplorerUrl: "https://scan.flat.example",
      iconUrl: "https://flat.example/icon.png",
      nativeCurrencyName: "Flat",
      nativeCurrencySymbol: "FLT",
      nativeCurrencyIconUrl: "https://flat.example/flt.png",
      nativeCurrencyDecimals: 6,
    };
    const res = await call(app.baseUrl, "POST", listPath(t), { token: t.token, body: flat });
    expect(res.status, res.text).toBe(201);
    expect(res.body.customNetwork).toMatchObject({ ...flat, name: "Flat chain", rpcUrls: ["https://rpc.flat.example"], nativeCurrency: { decimals: 6, iconUrl: "https://flat.example/flt.png" } });
    const put = await call(app.baseUrl, "PUT", `${listPath(t)}/${res.body.customNetwork.id}`, { token: t.token, body: { ...flat, chainName: "Flat 2" } });
    expect(put.body.customNetwork.chainName).toBe("Flat 2");
    for (const omit of ["chainName", "rpcUrl", "nativeCurrencyName", "nativeCurrencySymbol", "nativeCurrencyDecimals"]) {
      const body: Record<string, unknown> = { ...flat, chainId: "6161" };
      delete body[omit];
      const bad = await call(app.baseUrl, "POST", listPath(t), { token: t.token, body });
      expect(bad.status, omit).toBe(400);
      expect(bad.body.code).toBe("validation_error");
    }
    for (const over of [{ networkType: "SOL" }, { nativeCurrencyIconUrl: "http://flt.example/x.png" }, { rpcUrl: "not a url" }]) {
      expect((await call(app.baseUrl, "POST", listPath(t), { token: t.token, body: { ...flat, chainId: "6161", ...over } })).status).toBe(400);
    }
    expect(await count(t.organizationId)).toBe(1);
  });

  it("accepts https anywhere and http only on loopback hosts", () => {
    expect(isAcceptableNetworkUrl("https://rpc.example")).toBe(true);
    expect(isAcceptableNetworkUrl("http://localhost:8545")).toBe(true);
    expect(isAcceptableNetworkUrl("http://127.0.0.53")).toBe(true);
    expect(isAcceptableNetworkUrl("http://[::1]/")).toBe(true);
    expect(isAcceptableNetworkUrl("http://10.0.0.1")).toBe(false);
    expect(isAcceptableNetworkUrl("http://localhost.evil.example")).toBe(false);
    expect(isAcceptableNetworkUrl("https://user:pw@rpc.example")).toBe(false);
  });

  it("another organization's tokens get 404 on every operation and change nothing; a developer-role token gets 403 on writes", async () => {
    const t = await tenant();
    const n = (await call(app.baseUrl, "POST", listPath(t), { token: t.token, body: network() })).body.customNetwork;
    const snapshot = async () =>
      JSON.stringify([await app.db.any("SELECT * FROM custom_networks WHERE organization_id = $1", [t.organizationId]), (await audits(t.organizationId, "custom_network.updated")).length]);
    const before = await snapshot();
    for (const token of [other.token, other.memberToken]) {
      for (const [method, p, body] of [
        ["GET", listPath(t), undefined],
        ["POST", listPath(t), network({ chainId: 999 })],
        ["GET", `${listPath(t)}/${n.id}`, undefined],
        ["PUT", `${listPath(t)}/${n.id}`, network({ name: "theirs" })],
        ["DELETE", `${listPath(t)}/${n.id}`, undefined],
        // Their own organization path with this organization's network id.
        ["GET", `${listPath(other)}/${n.id}`, undefined],
        ["PUT", `${listPath(other)}/${n.id}`, network({ name: "theirs" })],
        ["DELETE", `${listPath(other)}/${n.id}`, undefined],
      ] as const) {
        const res = await call(app.baseUrl, method, p, { token, body });
        expect(res.status, `${method} ${p}`).toBe(404);
        expect(res.body.code).toBe("not_found");
      }
    }
    expect(await snapshot()).toBe(before);
    expect(await count(t.organizationId)).toBe(1);

    await app.db.none("UPDATE members SET role = 'developer' WHERE id = $1", [t.memberId]);
    const denied = await call(app.baseUrl, "POST", listPath(t), { token: t.memberToken, body: network({ chainId: 7 }) });
    expect(denied.status).toBe(403);
    expect((await call(app.baseUrl, "GET", listPath(t), { token: t.memberToken })).status).toBe(200);
    expect(await count(t.organizationId)).toBe(1);
  });

  it("is served over gRPC (connect-es and @grpc/grpc-js with the project's .proto)", async () => {
    const t = await tenant();
    const headers = { authorization: `Bearer ${t.token}` };
    const client = createClient(CustomNetworksService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const created = await client.createCustomNetwork(
      {
        organizationId: t.organizationId,
        name: "gRPC chain",
        chainId: 777n,
        rpcUrls: ["https://rpc.grpc.example"],
        nativeCurrency: { name: "G", symbol: "G", decimals: 9 },
      },
      { headers },
    );
    expect(created.customNetwork?.chainId).toBe(777n);

    const root = path.resolve(import.meta.dirname, "../..");
    const def = protoLoader.loadSync(path.join(root, "proto/sigil/custom_networks/v0/custom_networks_service.proto"), {
      includeDirs: [path.join(root, "proto"), path.join(root, "node_modules/google-proto-files")],
      defaults: true,
    });
    const pkg = grpc.loadPackageDefinition(def) as any;
    const raw = new pkg.sigil.custom_networks.v0.CustomNetworksService(`127.0.0.1:${app.port}`, grpc.credentials.createInsecure());
    const meta = new grpc.Metadata();
    meta.set("authorization", `Bearer ${t.token}`);
    const list = await new Promise<any>((resolve, reject) =>
      raw.ListCustomNetworks({ organizationId: t.organizationId }, meta, (err: grpc.ServiceError | null, res: any) => (err ? reject(err) : resolve(res))),
    );
    raw.close();
    expect(list.count).toBe(1);
    expect(list.customNetworks[0].customNetwork.name).toBe("gRPC chain");
    await expect(client.getCustomNetwork({ organizationId: t.organizationId, networkId: randomUUID() }, { headers })).rejects.toMatchObject({ code: 5 });
  });
});
