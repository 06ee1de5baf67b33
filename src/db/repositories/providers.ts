import { randomUUID } from "node:crypto";
import type { Queryable } from "../db.js";
import { setEnabledAt } from "./enablement.js";

export interface ProviderRecord {
  id: string;
  environmentId: string;
  provider: string;
  clientId: string | null;
  /** Sealed with src/crypto/seal.ts; opened only where the service itself needs it (token exchange). */
  clientSecretSealed: string | null;
  authorizationUrl: string | null;
  baseAuthUrl: string | null;
  scopes: string | null;
  defaultChainId: number | null;
  defaultChain: string | null;
  keyExportUrl: string | null;
  termsUrl: string | null;
  termsAcceptedByMemberId: string | null;
  termsAcceptedEmail: string | null;
  termsAcceptedAt: Date | null;
  issuer: string | null;
  tokenUrl: string | null;
  userinfoUrl: string | null;
  preset: string | null;
  settings: Record<string, unknown>;
  enabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

type IssuerFields = "issuer" | "tokenUrl" | "userinfoUrl" | "preset";
export type NewProvider = Omit<ProviderRecord, "id" | "environmentId" | "enabledAt" | "createdAt" | "updatedAt" | "clientSecretSealed" | IssuerFields> &
  Partial<Pick<ProviderRecord, IssuerFields>>;

/** Inserts a provider, enabled at creation. The id is chosen by the caller so the secret can be sealed to it. */
export async function insertProvider(
  q: Queryable,
  environmentId: string,
  id: string,
  p: NewProvider & { clientSecretSealed: string | null },
): Promise<ProviderRecord> {
  const row = await q.one(
    `INSERT INTO providers (id, environment_id, provider, client_id, client_secret_sealed, authorization_url, base_auth_url,
       scopes, default_chain_id, default_chain, key_export_url, terms_url, terms_accepted_by_member_id,
       terms_accepted_email, terms_accepted_at, settings, issuer, token_url, userinfo_url, preset, enabled_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, now()) RETURNING *`,
    [
      id,
      environmentId,
      p.provider,
      p.clientId,
      p.clientSecretSealed,
      p.authorizationUrl,
      p.baseAuthUrl,
      p.scopes,
      p.defaultChainId,
      p.defaultChain,
      p.keyExportUrl,
      p.termsUrl,
      p.termsAcceptedByMemberId,
      p.termsAcceptedEmail,
      p.termsAcceptedAt,
      p.settings,
      p.issuer ?? null,
      p.tokenUrl ?? null,
      p.userinfoUrl ?? null,
      p.preset ?? null,
    ],
  );
  return toProvider(row);
}

export function newProviderId(): string {
  return randomUUID();
}

export async function providerKindExists(q: Queryable, environmentId: string, provider: string): Promise<boolean> {
  return (await q.oneOrNone("SELECT 1 FROM providers WHERE environment_id = $1 AND provider = $2", [environmentId, provider])) !== null;
}

export async function listProviders(q: Queryable, environmentId: string): Promise<ProviderRecord[]> {
  const rows = await q.any("SELECT * FROM providers WHERE environment_id = $1 ORDER BY created_at, id", [environmentId]);
  return rows.map(toProvider);
}

export async function findProvider(q: Queryable, environmentId: string, providerId: string): Promise<ProviderRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM providers WHERE environment_id = $1 AND id = $2", [environmentId, providerId]);
  return row ? toProvider(row) : null;
}

export async function findProviderByKind(q: Queryable, environmentId: string, provider: string): Promise<ProviderRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM providers WHERE environment_id = $1 AND provider = $2", [environmentId, provider]);
  return row ? toProvider(row) : null;
}

/** Enables (keeping the first enabling time if already enabled) or disables (enabledAt becomes null). */
export async function setProviderEnabled(
  q: Queryable,
  environmentId: string,
  providerId: string,
  enabled: boolean,
): Promise<ProviderRecord | null> {
  const row = await setEnabledAt(q, "providers", environmentId, { id: providerId }, enabled);
  return row ? toProvider(row) : null;
}

/** The columns an update may change (settings replaces the whole jsonb: the caller merges). */
export interface ProviderChanges {
  clientId?: string | null;
  /** undefined: keep; null: remove; string: the new sealed value. */
  clientSecretSealed?: string | null;
  authorizationUrl?: string | null;
  baseAuthUrl?: string | null;
  scopes?: string | null;
  defaultChainId?: number | null;
  defaultChain?: string | null;
  keyExportUrl?: string | null;
  issuer?: string | null;
  tokenUrl?: string | null;
  userinfoUrl?: string | null;
  settings?: Record<string, unknown>;
}

const CHANGE_COLUMNS: Record<keyof ProviderChanges, string> = {
  clientId: "client_id",
  clientSecretSealed: "client_secret_sealed",
  authorizationUrl: "authorization_url",
  baseAuthUrl: "base_auth_url",
  scopes: "scopes",
  defaultChainId: "default_chain_id",
  defaultChain: "default_chain",
  keyExportUrl: "key_export_url",
  issuer: "issuer",
  tokenUrl: "token_url",
  userinfoUrl: "userinfo_url",
  settings: "settings",
};

/** Applies the given changes; column names come from the fixed map above, values are parameters. */
export async function updateProvider(
  q: Queryable,
  environmentId: string,
  providerId: string,
  changes: ProviderChanges,
): Promise<ProviderRecord | null> {
  const sets: string[] = [];
  const params: unknown[] = [environmentId, providerId];
  for (const [key, column] of Object.entries(CHANGE_COLUMNS) as [keyof ProviderChanges, string][]) {
    if (changes[key] === undefined) continue;
    params.push(changes[key]);
    sets.push(`${column} = $${params.length}`);
  }
  sets.push("updated_at = now()");
  const row = await q.oneOrNone(
    `UPDATE providers SET ${sets.join(", ")} WHERE environment_id = $1 AND id = $2 RETURNING *`,
    params,
  );
  return row ? toProvider(row) : null;
}

export async function deleteProvider(q: Queryable, environmentId: string, providerId: string): Promise<ProviderRecord | null> {
  const row = await q.oneOrNone("DELETE FROM providers WHERE environment_id = $1 AND id = $2 RETURNING *", [environmentId, providerId]);
  return row ? toProvider(row) : null;
}

function toProvider(r: Record<string, any>): ProviderRecord {
  return {
    id: r.id,
    environmentId: r.environment_id,
    provider: r.provider,
    clientId: r.client_id,
    clientSecretSealed: r.client_secret_sealed,
    authorizationUrl: r.authorization_url,
    baseAuthUrl: r.base_auth_url,
    scopes: r.scopes,
    defaultChainId: r.default_chain_id,
    defaultChain: r.default_chain,
    keyExportUrl: r.key_export_url,
    termsUrl: r.terms_url,
    termsAcceptedByMemberId: r.terms_accepted_by_member_id,
    termsAcceptedEmail: r.terms_accepted_email,
    termsAcceptedAt: r.terms_accepted_at,
    issuer: r.issuer,
    tokenUrl: r.token_url,
    userinfoUrl: r.userinfo_url,
    preset: r.preset,
    settings: r.settings,
    enabledAt: r.enabled_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
