import { randomUUID } from "node:crypto";
import type { SDKApi } from "@dynamic-labs/sdk-api";
import { expect } from "vitest";
import type { Config } from "../../../src/config.js";
import type { BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { call } from "../../support/http.js";
import { neutralWords } from "../../support/neutral-words.js";
import { sdkFor } from "../../support/sdk-client.js";
import { startExchangePeer, type ExchangePeer } from "./exchange-peer.js";

/** A test app, a loopback exchange peer, and a first tenant whose environment has the peer connected. */
export interface ExchangeSetup {
  app: TestApp;
  peer: ExchangePeer;
  tenant: BootstrapResult;
  /** The published client, speaking the contract's neutral exchange kind (its ExchangeKeyEnum names only vendors). */
  sdk(jwt?: string): SDKApi;
  /** Connects the peer as the environment's exchange (201): the setup's defaults, then `body` over them; answers its id. */
  connectExchange(tenant: BootstrapResult, body?: Record<string, unknown>): Promise<string>;
  /** A new tenant of the same app, with the peer connected as connectExchange does. */
  connectedTenant(body?: Record<string, unknown>): Promise<{ tenant: BootstrapResult; exchangeId: string }>;
  stop(): Promise<void>;
}

/** Starts the app and the peer; `defaults` are the exchange settings every connectExchange writes (e.g. onRampProvider). */
export async function startExchangeSetup(defaults: Record<string, unknown> = {}, appConfig: Partial<Config> = {}): Promise<ExchangeSetup> {
  const peer = await startExchangePeer();
  const app = await startTestApp(appConfig, { dispatcher: false });
  const connectExchange = async (tenant: BootstrapResult, body: Record<string, unknown> = {}) => {
    const res = await call(app.baseUrl, "POST", `/environments/${tenant.environmentId}/settings/exchanges`, {
      token: tenant.token,
      body: { exchange: "generic", apiBaseUrl: peer.baseUrl, apiKey: peer.apiKey, apiSecret: peer.apiSecret, passphrase: peer.passphrase, ...defaults, ...body },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  const connectedTenant = async (body: Record<string, unknown> = {}) => {
    const tenant = await app.bootstrap({ ownerEmail: `${randomUUID()}@example.com` });
    return { tenant, exchangeId: await connectExchange(tenant, body) };
  };
  const { tenant } = await connectedTenant();
  return {
    app,
    peer,
    tenant,
    sdk: (jwt) => sdkFor(app.baseUrl, jwt).withMiddleware(neutralWords),
    connectExchange,
    connectedTenant,
    async stop() {
      await app.stop();
      await peer.close();
    },
  };
}
