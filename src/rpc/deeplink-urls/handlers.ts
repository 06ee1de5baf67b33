import type { ConnectRouter } from "@connectrpc/connect";
import { DeeplinkUrlsService } from "../../gen/sigil/deeplink_urls/v0/deeplink_urls_service_pb.js";
import type { DeeplinkUrlRecord } from "../../db/repositories/deeplink-urls.js";
import * as deeplinks from "../../domain/deeplink-urls/service.js";
import type { Deps } from "../../domain/deps.js";
import { ts } from "../mappers.js";
import { pageOf } from "../paging.js";
import { environmentOf } from "../tenant-context.js";

const toDeeplinkUrl = (d: DeeplinkUrlRecord) => ({ id: d.id, url: d.url, projectEnvironmentId: d.environmentId, createdAt: ts(d.createdAt) });

export function registerDeeplinkUrls(router: ConnectRouter, deps: Deps) {
  router.service(DeeplinkUrlsService, {
    async listDeeplinkUrls(req, ctx) {
      const access = environmentOf(ctx);
      const { items, count } = await deeplinks.listDeeplinkUrls(deps, access, pageOf(req));
      return { deeplinkUrls: items.map(toDeeplinkUrl), count };
    },
    async createDeeplinkUrl(req, ctx) {
      const access = environmentOf(ctx);
      return { deeplinkUrl: toDeeplinkUrl(await deeplinks.addDeeplinkUrl(deps, access, req.url)) };
    },
    async deleteDeeplinkUrl(req, ctx) {
      const access = environmentOf(ctx);
      await deeplinks.deleteDeeplinkUrl(deps, access, req.deeplinkUrlId);
      return {};
    },
  });
}
