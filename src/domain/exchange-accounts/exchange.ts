import type { ExchangeRecord } from "../../db/repositories/exchanges.js";
import { findExchangeByKind, findOnrampExchange } from "../../db/repositories/exchange-accounts.js";
import { exchangeCredentialAad } from "../exchanges/service.js";
import { notFound } from "../../errors.js";
import type { Deps } from "../deps.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { exchangeNotConfigured } from "./errors.js";
import type { ExchangeTarget } from "./port.js";

/** The exchange kinds a connection may have (ExchangesService's neutral words): the path's exchangeKey. */
const EXCHANGE_KINDS = new Set(["commerce", "custody", "partner", "generic"]);

/** A usable connection: enabled, with its base URL and its credentials opened. */
export interface UsableExchange {
  record: ExchangeRecord;
  target: ExchangeTarget;
}

/**
 * The connection and call target of an exchange: enabled, with a base URL and credentials (Sigil signs every
 * call and is the OAuth client, so a connection without them cannot be used), else 422 not_configured.
 */
function usable(deps: Pick<Deps, "sealer">, env: PublicEnvironment, record: ExchangeRecord | null, kind: string): UsableExchange {
  if (!record) throw exchangeNotConfigured(`this environment has no ${kind} exchange`, { exchangeKey: kind });
  if (!record.enabledAt) throw exchangeNotConfigured(`the ${record.exchange} exchange is disabled`, { exchangeKey: record.exchange });
  if (!record.apiBaseUrl) throw exchangeNotConfigured(`the ${record.exchange} exchange has no apiBaseUrl`, { exchangeKey: record.exchange });
  if (!record.apiKeySealed || !record.apiSecretSealed)
    throw exchangeNotConfigured(`the ${record.exchange} exchange has no api credentials`, { exchangeKey: record.exchange });
  const open = (sealed: string, c: Parameters<typeof exchangeCredentialAad>[1]) => deps.sealer.open(sealed, exchangeCredentialAad(record.id, c));
  return {
    record,
    target: {
      baseUrl: record.apiBaseUrl,
      environmentName: env.environmentName,
      apiKey: open(record.apiKeySealed, "api_key"),
      apiSecret: open(record.apiSecretSealed, "api_secret"),
      passphrase: record.passphraseSealed ? open(record.passphraseSealed, "passphrase") : null,
    },
  };
}

/** The environment's exchange of the path's kind: 404 for a word that is no exchange kind, 422 not_configured when unusable. */
export async function exchangeOfKey(deps: Pick<Deps, "db" | "sealer">, env: PublicEnvironment, exchangeKey: string): Promise<UsableExchange> {
  if (!EXCHANGE_KINDS.has(exchangeKey)) throw notFound("exchange");
  return usable(deps, env, await findExchangeByKind(deps.db, env.environmentId, exchangeKey), exchangeKey);
}

/** The environment's on-ramp exchange (the first enabled one naming an on-ramp provider), else 422 not_configured. */
export async function onrampExchange(deps: Pick<Deps, "db" | "sealer">, env: PublicEnvironment): Promise<UsableExchange> {
  const record = await findOnrampExchange(deps.db, env.environmentId);
  if (!record) throw exchangeNotConfigured("this environment has no enabled exchange with an on-ramp provider");
  return usable(deps, env, record, record.exchange);
}
