import { randomUUID } from "node:crypto";
import { badRequest, notFound, unprocessable } from "../../errors.js";
import * as repo from "../../db/repositories/deeplink-urls.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { normalizeDeeplinkUrl } from "./deeplink-url.js";

export const MAX_DEEPLINK_URLS = 50;

const snapshot = (d: repo.DeeplinkUrlRecord) => ({ id: d.id, url: d.url });

export function listDeeplinkUrls(deps: Deps, access: EnvironmentAccess, page: { offset: number; limit: number }) {
  return repo.listDeeplinkUrls(deps.db, access.environmentId, page);
}

export async function addDeeplinkUrl(deps: Deps, access: EnvironmentAccess, input: string) {
  const parsed = normalizeDeeplinkUrl(input);
  if (!parsed.ok) throw badRequest("invalid_deeplink_url", `url ${parsed.reason}`, { field: "url" });
  return audited(deps, access, async (t, record) => {
    await t.any("SELECT pg_advisory_xact_lock(hashtext('deeplink_urls:' || $1))", [access.environmentId]);
    const { count } = await repo.listDeeplinkUrls(t, access.environmentId, { offset: 0, limit: 0 });
    if (count >= MAX_DEEPLINK_URLS) throw unprocessable("deeplink_url_limit_reached", `an environment has at most ${MAX_DEEPLINK_URLS} deeplink URLs`);
    let created: repo.DeeplinkUrlRecord;
    try {
      created = await t.tx((sp) => repo.insertDeeplinkUrl(sp, access.environmentId, randomUUID(), parsed.url));
    } catch (err) {
      if ((err as { code?: string }).code === "23505")
        throw unprocessable("deeplink_url_already_exists", `${parsed.url} is already configured for this environment`);
      throw err;
    }
    await record({ action: "deeplink_url.created", resourceType: "deeplink_url", resourceId: created.id, after: snapshot(created) });
    return created;
  });
}

export async function deleteDeeplinkUrl(deps: Deps, access: EnvironmentAccess, id: string) {
  await audited(deps, access, async (t, record) => {
    const deleted = await repo.deleteDeeplinkUrl(t, access.environmentId, id);
    if (!deleted) throw notFound("deeplink URL");
    await record({ action: "deeplink_url.deleted", resourceType: "deeplink_url", resourceId: deleted.id, before: snapshot(deleted) });
  });
}
