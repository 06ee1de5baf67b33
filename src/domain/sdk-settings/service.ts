import { badRequest, notFound } from "../../errors.js";
import { allCustomFields, type CustomFieldRecord } from "../../db/repositories/custom-fields.js";
import { listCustomNetworks, type CustomNetworkRecord } from "../../db/repositories/custom-networks.js";
import { findGlobalWalletSettings } from "../../db/repositories/global-wallet.js";
import { findEnvironmentRecord } from "../../db/repositories/projects.js";
import { findProviderByKind, listProviders, type ProviderRecord } from "../../db/repositories/providers.js";
import { isVendorKind } from "../providers/vendor-kinds.js";
import type { Deps } from "../deps.js";
import { effectiveSettings, type SettingsDocument } from "../environments/settings.js";
import { originAllowedBy } from "../origins/origin.js";
import { originPatterns } from "../origins/service.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { normaliseEmail } from "../verifications/email.js";
import { normalizeWalletAddress } from "../wallets/addresses.js";

/** Custom networks shown per organization: far above any real use, bounded so one answer stays small. */
const MAX_CUSTOM_NETWORKS = 500;

/** The chain group custom networks belong to (they are EVM networks: a numeric chain id and RPC URLs). */
const CUSTOM_NETWORK_CHAIN = "EVM";

/** Everything the SDK's settings document is made of, read in one go. Nothing here is a secret. */
export interface SdkEnvironmentView {
  environmentName: "live" | "sandbox";
  settings: Required<SettingsDocument>;
  providers: ProviderRecord[];
  customFields: CustomFieldRecord[];
  networks: NetworkGroup[];
}

export interface NetworkGroup {
  chainName: string;
  networks: CustomNetworkRecord[];
}

async function storedSettings(deps: Pick<Deps, "db">, env: PublicEnvironment) {
  const record = await findEnvironmentRecord(deps.db, env.environmentId);
  if (!record) throw notFound("environment");
  return effectiveSettings(record.settings);
}

/**
 * One group per enabled chain of the settings (in their order), and the organization's custom networks in
 * the EVM group (made when the settings do not list it). Read from storage only: no chain is called.
 */
async function networkGroups(deps: Pick<Deps, "db">, env: PublicEnvironment, settings: Required<SettingsDocument>): Promise<NetworkGroup[]> {
  const groups: NetworkGroup[] = settings.chains.filter((c) => c.enabled).map((c) => ({ chainName: c.name, networks: [] }));
  const { networks } = await listCustomNetworks(deps.db, env.organizationId, { offset: 0, limit: MAX_CUSTOM_NETWORKS });
  if (networks.length === 0) return groups;
  let evm = groups.find((g) => g.chainName === CUSTOM_NETWORK_CHAIN);
  if (!evm) groups.push((evm = { chainName: CUSTOM_NETWORK_CHAIN, networks: [] }));
  evm.networks.push(...networks);
  return groups;
}

export async function environmentView(deps: Pick<Deps, "db">, env: PublicEnvironment): Promise<SdkEnvironmentView> {
  const settings = await storedSettings(deps, env);
  const [providers, customFields, networks] = await Promise.all([
    listProviders(deps.db, env.environmentId),
    allCustomFields(deps.db, env.environmentId),
    networkGroups(deps, env, settings),
  ]);
  return {
    environmentName: env.environmentName,
    settings,
    // A vendor's URL and key id are the server's business, never shown to an anonymous SDK caller.
    providers: providers.filter((p) => p.enabledAt !== null && !isVendorKind(p.provider)),
    customFields: customFields.filter((f) => f.enabled),
    networks,
  };
}

export async function environmentNetworks(deps: Pick<Deps, "db">, env: PublicEnvironment): Promise<NetworkGroup[]> {
  return networkGroups(deps, env, await storedSettings(deps, env));
}

/**
 * The sign-in method for an email address: magicLink when the environment has that provider enabled, else
 * emailOnly. The environment alone decides: an answer that depended on the address's user would tell an
 * anonymous caller who has an account. The address is still checked (a plain address, 400 otherwise).
 */
export async function emailProviderFor(deps: Pick<Deps, "db">, env: PublicEnvironment, email: string): Promise<"emailOnly" | "magicLink"> {
  normaliseEmail(email);
  const magicLink = await findProviderByKind(deps.db, env.environmentId, "magicLink");
  return magicLink?.enabledAt ? "magicLink" : "emailOnly";
}

export async function globalWalletSettings(deps: Pick<Deps, "db">, env: PublicEnvironment) {
  const s = await findGlobalWalletSettings(deps.db, env.environmentId);
  if (!s) throw notFound("global wallet settings");
  return s;
}

/**
 * Whether `url` is outside the environment's registered origins: false when its origin is one of them,
 * true when the environment has origins and it is not one, undefined when the environment has none (there
 * is nothing to judge by). No network call: a URL is judged by its origin alone.
 */
export async function scanUrl(deps: Pick<Deps, "db">, env: PublicEnvironment, url: string): Promise<boolean | undefined> {
  let origin: string;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("scheme");
    origin = parsed.origin;
  } catch {
    throw badRequest("invalid_url", "url must be an absolute http(s) URL", { field: "url" });
  }
  const patterns = await originPatterns(deps, env.environmentId);
  if (patterns.size === 0) return undefined;
  return !originAllowedBy(patterns, origin);
}

/** Checks what the SDK announces before sign-in (an invalid address is the caller's error, not ignored). */
export function checkPrefetch(chain: string, address: string): void {
  normalizeWalletAddress(chain, address);
}

/** Top-level keys logged of what the SDK reports: enough to see what it runs with, bounded in size. */
const MAX_REPORTED_KEYS = 20;
const MAX_KEY_CHARS = 64;

/** A bounded summary of the SDK's self-report for the log (keys, and the framework names it names). */
export function summarizeSdkReport(report: Record<string, unknown>): Record<string, unknown> {
  const names = (o: object) => Object.keys(o).slice(0, MAX_REPORTED_KEYS).map((k) => k.slice(0, MAX_KEY_CHARS));
  const framework = report.frameworkSettings;
  return { keys: names(report), frameworks: framework && typeof framework === "object" ? names(framework) : [] };
}
