import type { ConnectRouter } from "@connectrpc/connect";
import { toJson } from "@bufbuild/protobuf";
import { EnvironmentsService } from "../../gen/sigil/environments/v0/environments_service_pb.js";
import { ChainNetworkSchema, GeneralSettingsSchema, SdkSettingsSchema, SecuritySettingsSchema } from "../../gen/sigil/environments/v0/environments_pb.js";
import type { Deps } from "../../domain/deps.js";
import * as environments from "../../domain/environments/service.js";
import type { ChainNetworkSetting, SettingsDocument } from "../../domain/environments/settings.js";
import { ts } from "../mappers.js";
import { pageOf } from "../paging.js";
import { toEnvironment, toEnvironmentSettings } from "./mappers.js";
import { environmentOf, projectOf } from "../tenant-context.js";

const asJson = (v: unknown) => v as Record<string, unknown>;

export function registerEnvironments(router: ConnectRouter, deps: Deps) {
  router.service(EnvironmentsService, {
    async listProjectEnvironments(req, ctx) {
      const access = projectOf(ctx);
      const r = await environments.listProjectEnvironments(deps, access.organizationId, access.projectId, pageOf(req));
      // The client's EnvironmentsResponse names the two environments.
      const byName = (name: string) => r.environments.find((e) => e.name === name);
      const live = byName("live");
      const sandbox = byName("sandbox");
      return { environments: { live: live && toEnvironment(live), sandbox: sandbox && toEnvironment(sandbox) }, count: r.count };
    },
    async getEnvironment(req, ctx) {
      return { environment: toEnvironment(await environments.getEnvironment(deps, environmentOf(ctx))) };
    },
    async updateEnvironmentSettings(req, ctx) {
      const access = environmentOf(ctx);
      // Sections in their JSON form (the stored document's); a section given replaces the stored one.
      const update: SettingsDocument = {};
      if (req.general) update.general = asJson(toJson(GeneralSettingsSchema, req.general));
      if (req.security) update.security = asJson(toJson(SecuritySettingsSchema, req.security, { alwaysEmitImplicit: true }));
      if (req.sdk) update.sdk = asJson(toJson(SdkSettingsSchema, req.sdk, { alwaysEmitImplicit: true }));
      // Repeated fields cannot say "absent": an empty chains list leaves the stored one.
      if (req.chains.length > 0)
        update.chains = req.chains.map((c) => ({
          name: c.name,
          enabled: c.enabled,
          ...(c.networks.length ? { networks: c.networks.map((n) => toJson(ChainNetworkSchema, n, { alwaysEmitImplicit: true }) as unknown as ChainNetworkSetting) } : {}),
        }));
      if (req.design) update.design = asJson(req.design);
      if (req.privacy) update.privacy = asJson(req.privacy);
      const environment = await environments.updateEnvironmentSettings(deps, access, update);
      return { environment: toEnvironment(environment), settings: toEnvironmentSettings(environment.settings) };
    },
    async getEnvironmentKeys(req, ctx) {
      const k = await environments.getEnvironmentKey(deps, environmentOf(ctx));
      return { key: { kid: k.kid, alg: k.alg, publicKey: k.publicKey, jwk: k.jwk, createdAt: ts(k.createdAt) } };
    },
  });
}
