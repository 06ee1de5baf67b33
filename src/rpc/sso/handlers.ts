import type { ConnectRouter } from "@connectrpc/connect";
import { SsoProvidersService } from "../../gen/sigil/sso/v0/sso_providers_service_pb.js";
import type { SsoProviderRecord } from "../../db/repositories/sso.js";
import type { Deps } from "../../domain/deps.js";
import * as sso from "../../domain/sso/service.js";
import { badRequest } from "../../errors.js";
import { orNull, str, ts } from "../mappers.js";
import { organizationOf } from "../tenant-context.js";

type SsoRequest = {
  protocol: string;
  issuer: string;
  entryPoint: string;
  clientId: string;
  clientSecret: string;
  certificate: string;
  enforce: boolean;
  domains: string[];
  // The published client's fields.
  provider: string;
  ssoDomain: string;
  emailDomain: string;
  enforceOnlySso?: boolean;
};

/**
 * The configuration from Sigil's fields or the published client's (provider "okta" is an OIDC provider,
 * ssoDomain the issuer's host, emailDomain a domain). `current`, on an update, fills what the client's
 * partial body leaves out.
 */
function ssoInput(req: SsoRequest, current?: SsoProviderRecord): sso.SsoProviderInput {
  const provider = req.provider === "okta" ? "oidc" : req.provider;
  const protocol = req.protocol || provider || current?.protocol;
  if (!protocol) throw badRequest("validation_error", "invalid request: protocol is required", { errors: [{ field: "protocol", message: "is required" }] });
  const issuer = req.issuer || (req.ssoDomain ? `https://${req.ssoDomain}` : "");
  const domains = req.domains.length > 0 ? req.domains : req.emailDomain ? [req.emailDomain] : [];
  const partial = current !== undefined && !req.protocol;
  return {
    protocol: protocol as "oidc" | "saml",
    issuer: orNull(issuer) ?? (partial ? current.issuer : null),
    entryPoint: orNull(req.entryPoint) ?? (partial ? current.entryPoint : null),
    clientId: orNull(req.clientId) ?? (partial ? current.clientId : null),
    clientSecret: orNull(req.clientSecret),
    certificate: orNull(req.certificate) ?? (partial ? current.certificate : null),
    enforce: req.enforceOnlySso ?? (partial ? current.enforce : req.enforce),
    domains: domains.length > 0 || !partial ? domains : current.domains,
  };
}

const hostOf = (url: string | null) => {
  try {
    return url ? new URL(url).host : "";
  } catch {
    return "";
  }
};

export function registerSsoProviders(router: ConnectRouter, deps: Deps) {
  const toSso = (p: SsoProviderRecord) => ({
    id: p.id,
    organizationId: p.organizationId,
    protocol: p.protocol,
    issuer: str(p.issuer),
    entryPoint: str(p.entryPoint),
    clientId: str(p.clientId),
    // The client secret is write-only: sealed at rest and never returned.
    clientSecretSet: p.clientSecretSealed !== null,
    certificate: str(p.certificate),
    enforce: p.enforce,
    domains: p.domains,
    redirectUrl: sso.ssoRedirectUrl(deps.config.publicUrl, p.id),
    createdAt: ts(p.createdAt),
    updatedAt: ts(p.updatedAt),
    provider: p.protocol,
    ssoDomain: hostOf(p.issuer),
    emailDomain: p.domains[0] ?? "",
    maskedClientSecret: p.clientSecretSealed !== null ? "********" : "",
    enforceOnlySso: p.enforce,
  });

  router.service(SsoProvidersService, {
    async getSsoProvider(req, ctx) {
      const access = organizationOf(ctx);
      return { ssoProvider: toSso(await sso.getSsoProvider(deps, access)) };
    },
    async createSsoProvider(req, ctx) {
      const access = organizationOf(ctx);
      return { ssoProvider: toSso(await sso.createSsoProvider(deps, access, ssoInput(req))) };
    },
    async updateSsoProvider(req, ctx) {
      const access = organizationOf(ctx);
      const current = await sso.getSsoProvider(deps, access);
      const input = ssoInput(req, current.id === req.ssoProviderId ? current : undefined);
      return { ssoProvider: toSso(await sso.updateSsoProvider(deps, access, req.ssoProviderId, input)) };
    },
    async deleteSsoProvider(req, ctx) {
      const access = organizationOf(ctx);
      await sso.deleteSsoProvider(deps, access, req.ssoProviderId);
      return {};
    },
  });
}
