import { randomUUID } from "node:crypto";
import { DomainError, badRequest, notFound, unprocessable } from "../../errors.js";
import * as repo from "../../db/repositories/global-wallet-connections.js";
import { findGlobalWalletSettings } from "../../db/repositories/global-wallet.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import { normalizeOrigin } from "../origins/origin.js";
import { endUserAccess } from "../sessions/service.js";
import type { EnvironmentAccess, PublicEnvironment } from "../tenancy/access.js";
import { isDomainAllowed } from "./access-control.js";

/** The apps users connected to through the environment's global wallet, optionally filtered. */
export function listConnections(
  deps: Pick<Deps, "db">,
  access: EnvironmentAccess,
  filter: { userId?: string; status?: repo.ConnectionStatus },
  page: { offset: number; limit: number },
) {
  return repo.listConnections(deps.db, access.environmentId, filter, page);
}

/** The signed-in user a connection change is made for, and the request to record it under. */
export interface ConnectionCaller {
  env: PublicEnvironment;
  userId: string;
  requestId: string;
}

const snapshot = (c: repo.GlobalWalletConnectionRecord) => ({ id: c.id, userId: c.userId, appUrl: c.appUrl, status: c.status, expiresAt: c.expiresAt });

/**
 * The app a connection is to, as an origin (the published client's appUrl: no path): the one the caller
 * names, else the Origin of the calling page. A page's opaque origin ("null", sandboxed frames) names no app.
 */
function appOriginOf(named: string | null, originHeader: string | null): string {
  const raw = named ?? (originHeader && originHeader !== "null" ? originHeader : null);
  if (!raw) throw badRequest("app_url_required", "name the app: appUrl, or call from the app's page (its Origin header)", { field: "appUrl" });
  const parsed = normalizeOrigin(raw);
  if (!parsed.ok || parsed.origin.includes("*") || !/^https?:\/\//.test(parsed.origin))
    throw badRequest("invalid_app_url", "appUrl must be an http(s) origin: scheme://host[:port], no path or wildcard", { field: "appUrl" });
  return parsed.origin;
}

/**
 * Records that the caller connected an app through the environment's global wallet, or answers their live
 * connection to that app (one per user and app: a client reconnecting must not pile up rows); a new expiry
 * moves the live one's. The global wallet must be enabled and its access control must let the app in.
 */
export async function connectApp(
  deps: Pick<Deps, "db">,
  caller: ConnectionCaller,
  input: { appUrl: string | null; originHeader: string | null; expiresAt: Date },
): Promise<repo.GlobalWalletConnectionRecord> {
  const appUrl = appOriginOf(input.appUrl, input.originHeader);
  if (!(input.expiresAt.getTime() > Date.now())) throw badRequest("invalid_expires_at", "expiresAt must be in the future", { field: "expiresAt" });
  const environmentId = caller.env.environmentId;
  const settings = await findGlobalWalletSettings(deps.db, environmentId);
  if (!settings?.enabledAt) throw unprocessable("global_wallet_not_enabled", "this environment's global wallet is not enabled");
  if (!(await isDomainAllowed(deps.db, environmentId, appUrl)))
    throw new DomainError("forbidden", "domain_not_allowed", "the global wallet's access control does not allow this app");
  return audited(deps, endUserAccess(caller.env, caller.userId, caller.requestId), async (t, record) => {
    const created = await repo.insertLiveConnection(t, environmentId, { id: randomUUID(), userId: caller.userId, appUrl, expiresAt: input.expiresAt });
    if (created) {
      await record({ action: "global_wallet_connection.created", resourceType: "global_wallet_connection", resourceId: created.id, after: snapshot(created) });
      return created;
    }
    // The insert yielded to a live connection (committed, possibly by a concurrent connect): answer it.
    const live = await repo.lockLiveConnection(t, environmentId, caller.userId, appUrl);
    if (!live) throw notFound("user");
    if (live.status === "disconnected") {
      // It lapsed (past its expiresAt): close its row, so connecting again is a new connection, as after a disconnect.
      const closed = await repo.setConnectionStatus(t, environmentId, live.id, "disconnected");
      await record({ action: "global_wallet_connection.disconnected", resourceType: "global_wallet_connection", resourceId: live.id, before: snapshot(live), after: snapshot(closed) });
      const fresh = await repo.insertLiveConnection(t, environmentId, { id: randomUUID(), userId: caller.userId, appUrl, expiresAt: input.expiresAt });
      if (!fresh) throw notFound("user");
      await record({ action: "global_wallet_connection.created", resourceType: "global_wallet_connection", resourceId: fresh.id, after: snapshot(fresh) });
      return fresh;
    }
    if (live.expiresAt?.getTime() === input.expiresAt.getTime()) return live;
    const renewed = await repo.setConnectionExpiry(t, environmentId, live.id, input.expiresAt);
    await record({ action: "global_wallet_connection.updated", resourceType: "global_wallet_connection", resourceId: live.id, before: snapshot(live), after: snapshot(renewed) });
    return renewed;
  });
}

/**
 * Marks one of the caller's connections disconnected (the row stays, for the history). Another user's or
 * environment's connection is not found, like one that does not exist; an already disconnected one is
 * answered as it is, so a client may retry.
 */
export async function disconnectConnection(deps: Pick<Deps, "db">, caller: ConnectionCaller, connectionId: string): Promise<repo.GlobalWalletConnectionRecord> {
  return audited(deps, endUserAccess(caller.env, caller.userId, caller.requestId), async (t, record) => {
    const current = await repo.lockUserConnection(t, caller.env.environmentId, caller.userId, connectionId);
    if (!current) throw notFound("global wallet connection");
    if (current.status === "disconnected") return current;
    const after = await repo.setConnectionStatus(t, caller.env.environmentId, connectionId, "disconnected");
    await record({ action: "global_wallet_connection.disconnected", resourceType: "global_wallet_connection", resourceId: connectionId, before: snapshot(current), after: snapshot(after) });
    return after;
  });
}
