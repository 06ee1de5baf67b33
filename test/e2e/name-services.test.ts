import { randomUUID } from "node:crypto";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { challengeKey } from "../../src/domain/name-services/challenge.js";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import { NameServicesService } from "../../src/gen/sigil/name_services/v0/name_services_service_pb.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { call } from "../support/http.js";

let app: TestApp;
let other: BootstrapResult;

beforeAll(async () => {
  app = await startTestApp();
  other = await app.bootstrap({ ownerEmail: `other-${randomUUID()}@example.com` });
});
afterAll(() => app?.stop());

const tenant = () => app.bootstrap({ ownerEmail: `ns-${randomUUID()}@example.com` });
const base = (t: BootstrapResult) => `/environments/${t.environmentId}/nameService/EVM`;

async function fetchMessage(t: BootstrapResult, domain: string, address: string) {
  const res = await call(app.baseUrl, "POST", `${base(t)}/signingMessage`, { token: t.token, body: { domain, address } });
  expect(res.status, res.text).toBe(200);
  return res.body as { message: string; nonce: string; expiresAt: string };
}

const count = async (table: string, environmentId: string) =>
  (await app.db.one(`SELECT count(*)::int AS n FROM ${table} WHERE environment_id = $1`, [environmentId])).n as number;
const audits = (environmentId: string, action: string) =>
  app.db.any("SELECT * FROM audit_log WHERE environment_id = $1 AND action = $2 ORDER BY created_at", [environmentId, action]);

/** A tenant with a name service linked by a real key's signature. */
async function linked() {
  const t = await tenant();
  const owner = privateKeyToAccount(generatePrivateKey());
  const { message } = await fetchMessage(t, "myapp.eth", owner.address);
  const signature = await owner.signMessage({ message });
  const res = await call(app.baseUrl, "POST", base(t), { token: t.token, body: { domain: "myapp.eth", address: owner.address, signature, message } });
  expect(res.status, res.text).toBe(201);
  return { t, owner, body: res.body, message, signature };
}

describe("signing message", () => {
  it("names the environment, chain, domain, owner and a fresh nonce, and expires in about 10 minutes", async () => {
    const t = await tenant();
    const owner = privateKeyToAccount(generatePrivateKey());
    const before = Date.now();
    const a = await fetchMessage(t, "MyApp.ETH", owner.address.toLowerCase());
    expect(a.message).toContain(t.environmentId);
    expect(a.message).toContain("Chain: EVM");
    expect(a.message).toContain("Domain: myapp.eth");
    // The address is shown checksummed whatever case was sent.
    expect(a.message).toContain(owner.address);
    expect(a.message).toContain(`Nonce: ${a.nonce}`);
    expect(a.nonce).toMatch(/^[0-9a-f]{32}$/);
    const ttl = Date.parse(a.expiresAt) - before;
    expect(ttl).toBeGreaterThan(9 * 60_000);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000 + 5_000);
    const stored = JSON.parse((await app.store.get(challengeKey(t.environmentId, "EVM", a.nonce)))!);
    expect(stored).toMatchObject({ domain: "myapp.eth", address: owner.address, message: a.message, environmentId: t.environmentId });
    const b = await fetchMessage(t, "myapp.eth", owner.address);
    expect(b.nonce).not.toBe(a.nonce);
  });

  it("rejects a bad domain, address or chain with 400", async () => {
    const t = await tenant();
    const address = privateKeyToAccount(generatePrivateKey()).address;
    for (const domain of ["nodot", "has space.eth", "a..eth", "https://x.eth", ""]) {
      const res = await call(app.baseUrl, "POST", `${base(t)}/signingMessage`, { token: t.token, body: { domain, address } });
      expect(res.status, domain).toBe(400);
      expect(res.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
    const badAddress = await call(app.baseUrl, "POST", `${base(t)}/signingMessage`, { token: t.token, body: { domain: "x.eth", address: "0x1234" } });
    expect(badAddress.status).toBe(400);
    expect(badAddress.body.code).toBe("invalid_address");
    // A mixed-case address with a wrong checksum is refused, not silently fixed.
    const wrongChecksum = address.slice(0, 2) + [...address.slice(2)].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join("");
    const bad = await call(app.baseUrl, "POST", `${base(t)}/signingMessage`, { token: t.token, body: { domain: "x.eth", address: wrongChecksum } });
    expect(bad.status).toBe(400);
    // All-caps hex carries no checksum (EIP-55): the same address, answered checksummed.
    const caps = await call(app.baseUrl, "POST", `${base(t)}/signingMessage`, { token: t.token, body: { domain: "caps.eth", address: `0x${address.slice(2).toUpperCase()}` } });
    expect(caps.status, caps.text).toBe(200);
    expect(caps.body.message).toContain(address);
    const chain = await call(app.baseUrl, "POST", `/environments/${t.environmentId}/nameService/BTC/signingMessage`, {
      token: t.token,
      body: { domain: "x.eth", address },
    });
    expect(chain.status).toBe(400);
  });
});

describe("create a name service", () => {
  it("links the domain when the owner's key signed the issued message; audited; GET returns it", async () => {
    const { t, owner, body } = await linked();
    expect(body).toMatchObject({ chainName: "EVM", domain: "myapp.eth", ownerAddress: owner.address, environmentId: t.environmentId });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.enabledAt).toEqual(expect.any(String));
    const get = await call(app.baseUrl, "GET", base(t), { token: t.token });
    expect(get.status).toBe(200);
    expect(get.body).toEqual(body);
    const [audit] = await audits(t.environmentId, "name_service.created");
    expect(audit).toMatchObject({ resource_type: "name_service", resource_id: body.id, organization_id: t.organizationId, actor_token_id: t.tokenId });
    expect(audit.changes.after).toMatchObject({ domain: "myapp.eth", ownerAddress: owner.address });
  });

  it("accepts the nonce instead of the message", async () => {
    const t = await tenant();
    const owner = privateKeyToAccount(generatePrivateKey());
    const { message, nonce } = await fetchMessage(t, "nonce.eth", owner.address);
    const signature = await owner.signMessage({ message });
    const res = await call(app.baseUrl, "POST", base(t), { token: t.token, body: { domain: "nonce.eth", address: owner.address, signature, nonce } });
    expect(res.status, res.text).toBe(201);
  });

  it("accepts the signature alone (the published client's form): the newest challenge for the domain and owner, once", async () => {
    const t = await tenant();
    const owner = privateKeyToAccount(generatePrivateKey());
    await fetchMessage(t, "client.eth", owner.address);
    const fetched = await call(app.baseUrl, "POST", `${base(t)}/signingMessage`, {
      token: t.token,
      body: { domain: "client.eth", address: owner.address, uri: "https://app.example.com" },
    });
    expect(fetched.status, fetched.text).toBe(200);
    expect(fetched.body.unsignedMessage).toBe(fetched.body.message);
    const signature = await owner.signMessage({ message: fetched.body.unsignedMessage });
    const body = { domain: "client.eth", address: owner.address, signature };
    const res = await call(app.baseUrl, "POST", base(t), { token: t.token, body });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ domain: "client.eth", address: owner.address, ownerAddress: owner.address });
    await call(app.baseUrl, "DELETE", base(t), { token: t.token });
    const again = await call(app.baseUrl, "POST", base(t), { token: t.token, body });
    expect(again.status).toBe(422);
    expect(again.body.code).toBe("unknown_challenge");
    expect(await count("name_services", t.environmentId)).toBe(0);
  });

  it("answers 409 when the environment already has one for the chain, without using the challenge", async () => {
    const { t, owner } = await linked();
    const { message, nonce } = await fetchMessage(t, "second.eth", owner.address);
    const signature = await owner.signMessage({ message });
    const res = await call(app.baseUrl, "POST", base(t), { token: t.token, body: { domain: "second.eth", address: owner.address, signature, message } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("name_service_already_exists");
    expect(await count("name_services", t.environmentId)).toBe(1);
    expect(await app.store.get(challengeKey(t.environmentId, "EVM", nonce))).not.toBeNull();
  });

  it("refuses a signature made by another key (422) and burns the challenge", async () => {
    const t = await tenant();
    const owner = privateKeyToAccount(generatePrivateKey());
    const intruder = privateKeyToAccount(generatePrivateKey());
    const { message } = await fetchMessage(t, "victim.eth", owner.address);
    const forged = await intruder.signMessage({ message });
    const res = await call(app.baseUrl, "POST", base(t), { token: t.token, body: { domain: "victim.eth", address: owner.address, signature: forged, message } });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: "invalid_signature", error: expect.any(String) });
    expect(await count("name_services", t.environmentId)).toBe(0);
    expect(await audits(t.environmentId, "name_service.created")).toHaveLength(0);
    // The challenge answered one attempt: even the owner's real signature now needs a new one.
    const real = await owner.signMessage({ message });
    const retry = await call(app.baseUrl, "POST", base(t), { token: t.token, body: { domain: "victim.eth", address: owner.address, signature: real, message } });
    expect(retry.status).toBe(422);
    expect(retry.body.code).toBe("unknown_challenge");
    expect(await count("name_services", t.environmentId)).toBe(0);
  });

  it("refuses a tampered message even when the owner signed the tampered text (422)", async () => {
    const t = await tenant();
    const owner = privateKeyToAccount(generatePrivateKey());
    const { message } = await fetchMessage(t, "mine.eth", owner.address);
    const tampered = message.replace(`environment ${t.environmentId}`, `environment ${other.environmentId}`);
    expect(tampered).not.toBe(message);
    const signature = await owner.signMessage({ message: tampered });
    const res = await call(app.baseUrl, "POST", base(t), { token: t.token, body: { domain: "mine.eth", address: owner.address, signature, message: tampered } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("invalid_signature");
    // A signature of the tampered text presented with only the nonce fails too: the issued text is what counts.
    const again = await fetchMessage(t, "mine.eth", owner.address);
    const sig2 = await owner.signMessage({ message: again.message + "\nextra" });
    const res2 = await call(app.baseUrl, "POST", base(t), { token: t.token, body: { domain: "mine.eth", address: owner.address, signature: sig2, nonce: again.nonce } });
    expect(res2.status).toBe(422);
    expect(res2.body.code).toBe("invalid_signature");
    expect(await count("name_services", t.environmentId)).toBe(0);
  });

  it("refuses a replayed challenge (422)", async () => {
    const { t, owner, message, signature } = await linked();
    expect((await call(app.baseUrl, "DELETE", base(t), { token: t.token })).status).toBe(204);
    const replay = await call(app.baseUrl, "POST", base(t), { token: t.token, body: { domain: "myapp.eth", address: owner.address, signature, message } });
    expect(replay.status).toBe(422);
    expect(replay.body.code).toBe("unknown_challenge");
    expect(await count("name_services", t.environmentId)).toBe(0);
  });

  it("refuses an expired challenge (422)", async () => {
    const t = await tenant();
    const owner = privateKeyToAccount(generatePrivateKey());
    const { message, nonce } = await fetchMessage(t, "late.eth", owner.address);
    const key = challengeKey(t.environmentId, "EVM", nonce);
    const stored = JSON.parse((await app.store.get(key))!);
    await app.store.set(key, JSON.stringify({ ...stored, expiresAt: new Date(Date.now() - 1000).toISOString() }), 60);
    const signature = await owner.signMessage({ message });
    const res = await call(app.baseUrl, "POST", base(t), { token: t.token, body: { domain: "late.eth", address: owner.address, signature, message } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("challenge_expired");
    expect(await count("name_services", t.environmentId)).toBe(0);
  });

  it("refuses a challenge issued for another domain or owner, or another environment's challenge", async () => {
    const t = await tenant();
    const owner = privateKeyToAccount(generatePrivateKey());
    const { message } = await fetchMessage(t, "one.eth", owner.address);
    const signature = await owner.signMessage({ message });
    const res = await call(app.baseUrl, "POST", base(t), { token: t.token, body: { domain: "two.eth", address: owner.address, signature, message } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("challenge_mismatch");
    // A challenge of another environment is unknown here.
    const o = await fetchMessage(other, "one.eth", owner.address);
    const sig = await owner.signMessage({ message: o.message });
    const cross = await call(app.baseUrl, "POST", base(t), { token: t.token, body: { domain: "one.eth", address: owner.address, signature: sig, message: o.message } });
    expect(cross.status).toBe(422);
    expect(cross.body.code).toBe("unknown_challenge");
    expect(await count("name_services", t.environmentId)).toBe(0);
  });

  it("rejects malformed bodies with 400 and stores nothing", async () => {
    const t = await tenant();
    const address = privateKeyToAccount(generatePrivateKey()).address;
    const bodies = [
      { domain: "x.eth", address, message: "Nonce: abc" }, // no signature
      { domain: "x.eth", address, signature: "not-hex", nonce: "abc" },
      { domain: "bad", address, signature: "0xab", nonce: "abc" },
    ];
    for (const body of bodies) {
      const res = await call(app.baseUrl, "POST", base(t), { token: t.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toEqual(expect.any(String));
    }
    // Neither message nor nonce: the newest challenge for this domain and address, and none was issued.
    const none = await call(app.baseUrl, "POST", base(t), { token: t.token, body: { domain: "x.eth", address, signature: "0xabc" } });
    expect(none.status).toBe(422);
    expect(none.body.code).toBe("unknown_challenge");
    const garbage = await call(app.baseUrl, "POST", base(t), { token: t.token, body: { domain: "x.eth", address, signature: "0x1234", nonce: "abc" } });
    expect(garbage.status).toBe(422);
    expect(await count("name_services", t.environmentId)).toBe(0);
    expect(await count("audit_log", t.environmentId)).toBe(0);
  });
});

describe("enable, disable, delete", () => {
  it("disable clears enabledAt and enable sets it, both audited; delete answers 204", async () => {
    const { t, body } = await linked();
    const off = await call(app.baseUrl, "PUT", `${base(t)}/disable`, { token: t.token });
    expect(off.status).toBe(200);
    expect(off.body.enabledAt).toBeNull();
    expect((await call(app.baseUrl, "GET", base(t), { token: t.token })).body.enabledAt).toBeNull();
    const on = await call(app.baseUrl, "PUT", `${base(t)}/enable`, { token: t.token });
    expect(on.status).toBe(200);
    expect(on.body.enabledAt).toEqual(expect.any(String));
    expect(await audits(t.environmentId, "name_service.disabled")).toHaveLength(1);
    expect(await audits(t.environmentId, "name_service.enabled")).toHaveLength(1);
    const del = await call(app.baseUrl, "DELETE", base(t), { token: t.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await call(app.baseUrl, "GET", base(t), { token: t.token })).status).toBe(404);
    const [audit] = await audits(t.environmentId, "name_service.deleted");
    expect(audit.resource_id).toBe(body.id);
  });

  it("answers 404 when the environment has none", async () => {
    const t = await tenant();
    for (const [method, path] of [
      ["GET", base(t)],
      ["PUT", `${base(t)}/enable`],
      ["PUT", `${base(t)}/disable`],
      ["DELETE", base(t)],
    ] as const) {
      const res = await call(app.baseUrl, method, path, { token: t.token });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.code).toBe("not_found");
    }
    expect(await count("audit_log", t.environmentId)).toBe(0);
  });
});

describe("tenancy", () => {
  it("another tenant's environment and member tokens get 404 on every operation and change nothing", async () => {
    const { t, owner } = await linked();
    const { message } = await fetchMessage(t, "x.eth", owner.address);
    const signature = await owner.signMessage({ message });
    const snapshot = async () => JSON.stringify(await app.db.any("SELECT * FROM name_services WHERE environment_id = $1", [t.environmentId]));
    const before = await snapshot();
    const auditsBefore = await count("audit_log", t.environmentId);
    for (const token of [other.token, other.memberToken]) {
      for (const [method, path, body] of [
        ["GET", base(t), undefined],
        ["POST", base(t), { domain: "x.eth", address: owner.address, signature, message }],
        ["POST", `${base(t)}/signingMessage`, { domain: "x.eth", address: owner.address }],
        ["PUT", `${base(t)}/enable`, undefined],
        ["PUT", `${base(t)}/disable`, undefined],
        ["DELETE", base(t), undefined],
      ] as const) {
        const res = await call(app.baseUrl, method, path, { token, body });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.code).toBe("not_found");
      }
    }
    expect(await snapshot()).toBe(before);
    expect(await count("audit_log", t.environmentId)).toBe(auditsBefore);
  });

  it("the tenant's member token works too, and a token without nameServices.write gets 403", async () => {
    const t = await tenant();
    const owner = privateKeyToAccount(generatePrivateKey());
    const res = await call(app.baseUrl, "POST", `${base(t)}/signingMessage`, { token: t.memberToken, body: { domain: "m.eth", address: owner.address } });
    expect(res.status).toBe(200);
    await app.db.none("UPDATE api_tokens SET permissions = '{nameServices.read}' WHERE id = $1", [t.tokenId]);
    const denied = await call(app.baseUrl, "POST", `${base(t)}/signingMessage`, { token: t.token, body: { domain: "m.eth", address: owner.address } });
    expect(denied.status).toBe(403);
    expect((await call(app.baseUrl, "GET", base(t), { token: t.token })).status).toBe(404);
  });
});

describe("over gRPC", () => {
  it("fetches a signing message, creates and reads the name service", async () => {
    const t = await tenant();
    const headers = { authorization: `Bearer ${t.token}` };
    const client = createClient(NameServicesService, createGrpcTransport({ baseUrl: app.baseUrl }));
    const owner = privateKeyToAccount(generatePrivateKey());
    const issued = await client.fetchNameServiceSigningMessage(
      { environmentId: t.environmentId, chainName: "EVM", domain: "grpc.eth", address: owner.address },
      { headers },
    );
    expect(issued.message).toContain("grpc.eth");
    const signature = await owner.signMessage({ message: issued.message });
    const created = await client.createNameService(
      { environmentId: t.environmentId, chainName: "EVM", domain: "grpc.eth", address: owner.address, signature, nonce: issued.nonce },
      { headers },
    );
    expect(created.nameService?.ownerAddress).toBe(owner.address);
    const read = await client.getNameService({ environmentId: t.environmentId, chainName: "EVM" }, { headers });
    expect(read.nameService?.id).toBe(created.nameService?.id);
  });
});
