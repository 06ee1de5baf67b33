import { randomUUID } from "node:crypto";
import { badRequest, conflict, notFound } from "../../errors.js";
import * as repo from "../../db/repositories/exchanges.js";
import { audited } from "../audit/audit.js";
import { refusalOfBaseUrl } from "../base-urls.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";

/** Associated data binding each sealed credential to its row and purpose. */
export const exchangeCredentialAad = (exchangeId: string, credential: "api_key" | "api_secret" | "passphrase") =>
  `exchange:${exchangeId}:${credential}`;

/** Tells keys apart without revealing them: the last four characters only. */
export const apiKeyHint = (apiKey: string) => `****${apiKey.slice(-4)}`;

/** What the audit trail keeps of a connection: never the sealed credentials. */
export function exchangeAuditView(e: repo.ExchangeRecord) {
  const { apiKeySealed, apiSecretSealed, passphraseSealed, ...rest } = e;
  return { ...rest, hasPassphrase: passphraseSealed !== null };
}

const alreadyExists = (kind: string) => conflict("exchange_already_exists", `exchange ${kind} is already connected to this environment`);

export interface NewExchangeInput {
  exchange: string;
  /** Both or neither: a connection without credentials relies on the end users' linked accounts. */
  apiKey: string | null;
  apiSecret: string | null;
  passphrase: string | null;
  displayName: string | null;
  apiBaseUrl: string | null;
  socialProvider: string | null;
  onRampProvider: string | null;
}

export async function createExchange(deps: Deps, access: EnvironmentAccess, input: NewExchangeInput) {
  if (input.exchange === "generic" && !input.apiBaseUrl)
    throw badRequest("api_base_url_required", "apiBaseUrl is required for a generic exchange", { field: "apiBaseUrl" });
  const refused = input.apiBaseUrl ? refusalOfBaseUrl(input.apiBaseUrl, "apiBaseUrl", access.environmentName, deps.config.webhooks) : null;
  if (refused) throw badRequest("invalid_api_base_url", refused, { field: "apiBaseUrl" });
  if ((input.apiKey === null) !== (input.apiSecret === null))
    throw badRequest("credentials_incomplete", "give both apiKey and apiSecret, or neither", { field: input.apiKey === null ? "apiKey" : "apiSecret" });
  if (input.passphrase !== null && input.apiKey === null)
    throw badRequest("credentials_incomplete", "a passphrase needs apiKey and apiSecret", { field: "passphrase" });
  if (await repo.exchangeKindExists(deps.db, access.environmentId, input.exchange)) throw alreadyExists(input.exchange);
  const id = randomUUID();
  const seal = (value: string | null, credential: Parameters<typeof exchangeCredentialAad>[1]) =>
    value === null ? null : deps.sealer.seal(value, exchangeCredentialAad(id, credential));
  try {
    return await audited(deps, access, async (t, record) => {
      const created = await repo.insertExchange(t, access.environmentId, {
        id,
        exchange: input.exchange,
        displayName: input.displayName,
        apiBaseUrl: input.apiBaseUrl,
        apiKeySealed: seal(input.apiKey, "api_key"),
        apiSecretSealed: seal(input.apiSecret, "api_secret"),
        passphraseSealed: seal(input.passphrase, "passphrase"),
        apiKeyHint: input.apiKey === null ? null : apiKeyHint(input.apiKey),
        socialProvider: input.socialProvider,
        onRampProvider: input.onRampProvider,
      });
      await record({ action: "exchange.created", resourceType: "exchange", resourceId: id, after: exchangeAuditView(created) });
      return created;
    });
  } catch (err) {
    if ((err as { code?: string }).code === "23505") throw alreadyExists(input.exchange);
    throw err;
  }
}

export function listExchanges(deps: Deps, access: EnvironmentAccess, page: { offset: number; limit: number }) {
  return repo.listExchanges(deps.db, access.environmentId, page);
}

export async function getExchange(deps: Deps, access: EnvironmentAccess, id: string) {
  const e = await repo.findExchange(deps.db, access.environmentId, id);
  if (!e) throw notFound("exchange");
  return e;
}

export async function setExchangeEnabled(deps: Deps, access: EnvironmentAccess, id: string, enabled: boolean) {
  return audited(deps, access, async (t, record) => {
    const before = await repo.findExchange(t, access.environmentId, id, true);
    if (!before) throw notFound("exchange");
    const after = (await repo.setExchangeEnabled(t, access.environmentId, id, enabled))!;
    await record({
      action: enabled ? "exchange.enabled" : "exchange.disabled",
      resourceType: "exchange",
      resourceId: id,
      before: { enabledAt: before.enabledAt },
      after: { enabledAt: after.enabledAt },
    });
    return after;
  });
}

export async function deleteExchange(deps: Deps, access: EnvironmentAccess, id: string) {
  await audited(deps, access, async (t, record) => {
    const deleted = await repo.deleteExchange(t, access.environmentId, id);
    if (!deleted) throw notFound("exchange");
    await record({ action: "exchange.deleted", resourceType: "exchange", resourceId: id, before: exchangeAuditView(deleted) });
  });
}
