import type { ConnectRouter } from "@connectrpc/connect";
import { OrganizationsService } from "../../gen/sigil/organizations/v0/organizations_service_pb.js";
import { findOrganization } from "../../db/repositories/organizations.js";
import type { Deps } from "../../domain/deps.js";
import * as organizations from "../../domain/organizations/service.js";
import { notFound } from "../../errors.js";
import { orNull } from "../mappers.js";
import { pageOf } from "../paging.js";
import { toOrganization } from "./mappers.js";
import { accountOf, organizationOf, tenancyOf } from "../tenant-context.js";

export function registerOrganizations(router: ConnectRouter, deps: Deps) {
  router.service(OrganizationsService, {
    async listOrganizations(req, ctx) {
      const page = pageOf(req);
      // An environment token sees the one organization it belongs to (the tenancy interceptor resolved it).
      const access = tenancyOf(ctx).organization;
      if (access) {
        const o = await findOrganization(deps.db, access.organizationId);
        if (!o) throw notFound("organization");
        const list = page.offset === 0 ? [{ ...o, role: access.role }] : [];
        return { organizations: list.map(toOrganization), count: 1 };
      }
      const { accountId } = accountOf(ctx);
      const r = await organizations.listAccountOrganizations(deps, accountId, page);
      return { organizations: r.organizations.map(toOrganization), count: r.count };
    },
    async createOrganization(req, ctx) {
      const created = await organizations.createOrganization(deps, accountOf(ctx), {
        name: req.name,
        description: orNull(req.description),
        websiteUrl: orNull(req.websiteUrl),
      });
      return { organization: toOrganization(created) };
    },
    async getOrganization(req, ctx) {
      const access = organizationOf(ctx);
      return { organization: toOrganization(await organizations.getOrganization(deps, access)) };
    },
    async updateOrganization(req, ctx) {
      const access = organizationOf(ctx);
      const updated = await organizations.updateOrganization(deps, access, {
        name: req.name,
        description: req.description === undefined ? undefined : orNull(req.description),
        websiteUrl: req.websiteUrl === undefined ? undefined : orNull(req.websiteUrl),
      });
      return { organization: toOrganization(updated) };
    },
    async updateOrganizationAddress(req, ctx) {
      const access = organizationOf(ctx);
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
      await organizations.deleteOrganization(deps, organizationOf(ctx));
      return {};
    },
  });
}
