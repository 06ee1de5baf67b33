import type { ConnectRouter } from "@connectrpc/connect";
import { OrganizationsService } from "../../gen/sigil/organizations/v0/organizations_service_pb.js";
import { findOrganization } from "../../db/repositories/organizations.js";
import type { Deps } from "../../domain/deps.js";
import * as organizations from "../../domain/organizations/service.js";
import { accountAccess, organizationAccess } from "../../domain/tenancy/access.js";
import { notFound } from "../../errors.js";
import { tokenCaller } from "../context.js";
import { orNull } from "../mappers.js";
import { pageOf } from "../paging.js";
import { toOrganization } from "./mappers.js";

export function registerOrganizations(router: ConnectRouter, deps: Deps) {
  router.service(OrganizationsService, {
    async listOrganizations(req, ctx) {
      const page = pageOf(req);
      const p = tokenCaller(ctx);
      // An environment token sees the one organization it belongs to.
      if (p.kind === "api_token") {
        const access = await organizationAccess(deps, ctx, p.organizationId);
        const o = await findOrganization(deps.db, access.organizationId);
        if (!o) throw notFound("organization");
        const list = page.offset === 0 ? [{ ...o, role: access.role }] : [];
        return { organizations: list.map(toOrganization), count: 1 };
      }
      const { accountId } = accountAccess(ctx);
      const r = await organizations.listAccountOrganizations(deps, accountId, page);
      return { organizations: r.organizations.map(toOrganization), count: r.count };
    },
    async createOrganization(req, ctx) {
      const created = await organizations.createOrganization(deps, accountAccess(ctx), {
        name: req.name,
        description: orNull(req.description),
        websiteUrl: orNull(req.websiteUrl),
      });
      return { organization: toOrganization(created) };
    },
    async getOrganization(req, ctx) {
      const access = await organizationAccess(deps, ctx, req.organizationId);
      return { organization: toOrganization(await organizations.getOrganization(deps, access)) };
    },
    async updateOrganization(req, ctx) {
      const access = await organizationAccess(deps, ctx, req.organizationId);
      const updated = await organizations.updateOrganization(deps, access, {
        name: req.name,
        description: req.description === undefined ? undefined : orNull(req.description),
        websiteUrl: req.websiteUrl === undefined ? undefined : orNull(req.websiteUrl),
      });
      return { organization: toOrganization(updated) };
    },
    async updateOrganizationAddress(req, ctx) {
      const access = await organizationAccess(deps, ctx, req.organizationId);
      const updated = await organizations.updateOrganizationAddress(deps, access, {
        line1: orNull(req.line1),
        line2: orNull(req.line2),
        city: orNull(req.city),
        region: orNull(req.region),
        postalCode: orNull(req.postalCode),
        country: req.country.toUpperCase(),
      });
      return { organization: toOrganization(updated) };
    },
    async deleteOrganization(req, ctx) {
      await organizations.deleteOrganization(deps, await organizationAccess(deps, ctx, req.organizationId));
      return {};
    },
  });
}
