import type { ConnectRouter } from "@connectrpc/connect";
import { AllowlistsService } from "../../gen/sigil/allowlists/v0/allowlists_service_pb.js";
import type { AllowlistEntryRecord, AllowlistRecord } from "../../db/repositories/allowlists.js";
import * as allowlists from "../../domain/allowlists/service.js";
import type { Deps } from "../../domain/deps.js";
import { orNull, str, ts } from "../mappers.js";
import { pageOf } from "../paging.js";
import { environmentOf } from "../tenant-context.js";

function toAllowlist(a: AllowlistRecord) {
  return {
    id: a.id,
    name: a.name,
    projectEnvironmentId: a.environmentId,
    outcome: a.outcome,
    scope: str(a.scope),
    enabledAt: ts(a.enabledAt),
    createdAt: ts(a.createdAt),
    updatedAt: ts(a.updatedAt),
  };
}

function toEntry(e: AllowlistEntryRecord) {
  return {
    id: e.id,
    allowlistId: e.allowlistId,
    type: e.type,
    value: e.value,
    // The field named after the type repeats the value, as in the published entry shape.
    [e.type]: e.value,
    chain: str(e.chain),
    alias: str(e.alias),
    createdAt: ts(e.createdAt),
  };
}

export function registerAllowlists(router: ConnectRouter, deps: Deps) {
  router.service(AllowlistsService, {
    async listAllowlists(req, ctx) {
      const access = environmentOf(ctx);
      const { allowlists: list, count } = await allowlists.listAllowlists(deps, access, pageOf(req));
      return { allowlists: list.map(toAllowlist), count };
    },
    async createAllowlist(req, ctx) {
      const access = environmentOf(ctx);
      const created = await allowlists.createAllowlist(deps, access, { name: req.name, outcome: req.outcome, scope: orNull(req.scope) });
      return { allowlist: toAllowlist(created) };
    },
    async getAllowlist(req, ctx) {
      const access = environmentOf(ctx);
      return { allowlist: toAllowlist(await allowlists.getAllowlist(deps, access, req.allowlistId)) };
    },
    async updateAllowlist(req, ctx) {
      const access = environmentOf(ctx);
      const updated = await allowlists.updateAllowlist(deps, access, req.allowlistId, {
        name: req.name,
        outcome: req.outcome,
        scope: req.scope === undefined ? undefined : orNull(req.scope),
      });
      return { allowlist: toAllowlist(updated) };
    },
    async deleteAllowlist(req, ctx) {
      const access = environmentOf(ctx);
      await allowlists.deleteAllowlist(deps, access, req.allowlistId);
      return {};
    },
    async enableAllowlist(req, ctx) {
      const access = environmentOf(ctx);
      return { allowlist: toAllowlist(await allowlists.setAllowlistEnabled(deps, access, req.allowlistId, true)) };
    },
    async disableAllowlist(req, ctx) {
      const access = environmentOf(ctx);
      return { allowlist: toAllowlist(await allowlists.setAllowlistEnabled(deps, access, req.allowlistId, false)) };
    },
    async listAllowlistEntries(req, ctx) {
      const access = environmentOf(ctx);
      const { entries, count } = await allowlists.listEntries(deps, access, req.allowlistId, { ...pageOf(req), query: orNull(req.query) });
      return { entries: entries.map(toEntry), count };
    },
    async createAllowlistEntry(req, ctx) {
      const access = environmentOf(ctx);
      const entry = await allowlists.createEntry(deps, access, req.allowlistId, {
        type: orNull(req.type),
        value: orNull(req.value),
        walletPublicKey: orNull(req.walletPublicKey),
        email: orNull(req.email),
        emailDomain: orNull(req.emailDomain),
        phoneNumber: orNull(req.phoneNumber),
        chain: orNull(req.chain),
        alias: orNull(req.alias),
      });
      return { entry: toEntry(entry) };
    },
    async deleteAllowlistEntry(req, ctx) {
      const access = environmentOf(ctx);
      await allowlists.deleteEntry(deps, access, req.allowlistEntryId);
      return {};
    },
  });
}
