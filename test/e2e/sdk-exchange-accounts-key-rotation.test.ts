import { randomUUID } from "node:crypto";
import type { ExchangeKeyEnum } from "@dynamic-labs/sdk-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSealer } from "../../src/crypto/seal.js";
import { newKey } from "../support/sealed-values.js";
import { call } from "../support/http.js";
import { signInAs } from "../support/sessions.js";
import { startExchangeSetup, type ExchangeSetup } from "./support/exchange-setup.js";

/**
 * A write of the service during a sealing key rotation must not bring an old key back: `sigil keys reseal`
 * may already have passed the row. Here the exchange link's refresh, which keeps the stored refresh token
 * when the exchange answers none, on a service configured with [B, A].
 */

const A = newKey("keyA");
const B = newKey("keyB");
const KEY = "generic" as ExchangeKeyEnum;
let setup: ExchangeSetup;

beforeAll(async () => {
  setup = await startExchangeSetup({}, { sealingKeys: [B, A] });
}, 90_000);
afterAll(() => setup?.stop());

describe("a refresh that keeps the stored refresh token", () => {
  it("stores it under the current key, however old the key that sealed it", async () => {
    const { app, peer, tenant: t } = setup;
    const login = `rotating-${randomUUID()}`;
    peer.addUser(login, [{ id: `acc-${randomUUID()}`, type: "wallet", name: "w", chain: "EVM", balances: [], requires2fa: false }]);
    const user = await signInAs(app, t.environmentId);
    const link = await call(app.baseUrl, "POST", `/sdk/${t.environmentId}/exchange/generic/link`, { token: user.jwt, body: {} });
    expect(link.status, link.text).toBe(200);
    const back = await peer.authorize(link.body.url, login);
    expect(await setup.sdk().cbOauthRedirect({ environmentId: t.environmentId, code: back.searchParams.get("code")!, state: back.searchParams.get("state")! })).toContain("linked");

    // The link as a deployment before the rotation stored it: its refresh token under A.
    const row = await app.db.one("SELECT * FROM exchange_account_links WHERE user_id = $1", [user.userId]);
    const aad = `exchange-link:${row.exchange_id}:${user.userId}:refresh_token`;
    const refreshToken = app.deps.sealer.open(row.refresh_token_sealed, aad);
    await app.db.none("UPDATE exchange_account_links SET refresh_token_sealed = $2, expires_at = now() - interval '1 minute' WHERE id = $1", [
      row.id,
      createSealer([A]).seal(refreshToken, aad),
    ]);

    peer.keepsRefreshTokens = true;
    const refreshes = peer.refreshes;
    await setup.sdk(user.jwt).getUserAccounts({ environmentId: t.environmentId, exchangeKey: KEY });
    expect(peer.refreshes).toBe(refreshes + 1);
    const after = await app.db.one("SELECT refresh_token_sealed FROM exchange_account_links WHERE user_id = $1", [user.userId]);
    expect(after.refresh_token_sealed.split(".")[1]).toBe("keyB");
    expect(createSealer([B]).open(after.refresh_token_sealed, aad)).toBe(refreshToken);
  });
});
