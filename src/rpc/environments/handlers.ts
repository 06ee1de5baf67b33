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
import { namedSettings } from "./update-paths.js";
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
      // Every section in its JSON form (the stored document's), zeros included: the named paths pick from it.
      const emit = { alwaysEmitImplicit: true };
      const update: SettingsDocument = {
        general: req.general && asJson(toJson(GeneralSettingsSchema, req.general, emit)),
        security: req.security && asJson(toJson(SecuritySettingsSchema, req.security, emit)),
        sdk: req.sdk && asJson(toJson(SdkSettingsSchema, req.sdk, emit)),
        chains: req.chains.map((c) => ({
          name: c.name,
          enabled: c.enabled,
          ...(c.networks.length ? { networks: c.networks.map((n) => toJson(ChainNetworkSchema, n, emit) as unknown as ChainNetworkSetting) } : {}),
        })),
        design: req.design && asJson(req.design),
        privacy: req.privacy && asJson(req.privacy),
      };
      const environment = await environments.updateEnvironmentSettings(deps, access, update, namedSettings(req));
      return { environment: toEnvironment(environment), settings: toEnvironmentSettings(environment.settings) };
    },
    async getEnvironmentKeys(req, ctx) {
      const k = await environments.getEnvironmentKey(deps, environmentOf(ctx));
      return { key: { kid: k.kid, alg: k.alg, publicKey: k.publicKey, jwk: k.jwk, createdAt: ts(k.createdAt) } };
    },
  });
}
