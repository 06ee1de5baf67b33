import type { ConnectRouter } from "@connectrpc/connect";
import { SdkViewsService } from "../../gen/sigil/sdk_views/v0/sdk_views_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import * as sdkViews from "../../domain/sdk-views/service.js";
import { str, ts } from "../mappers.js";
import { pageOf } from "../paging.js";
import { environmentOf } from "../tenant-context.js";

const toSdkView = (v: sdkViews.SdkView) => ({
  type: v.type,
  sections: v.sections.map((s) => ({
    type: s.type,
    label: str(s.label),
    numOfItemsToDisplay: s.numOfItemsToDisplay ?? 0,
    defaultItem: str(s.defaultItem),
    alignment: str(s.alignment),
  })),
  customized: v.customized,
  updatedAt: ts(v.updatedAt),
});

export function registerSdkViews(router: ConnectRouter, deps: Deps) {
  router.service(SdkViewsService, {
    async listSdkViews(req, ctx) {
      const access = environmentOf(ctx);
      const { offset, limit } = pageOf(req);
      const all = await sdkViews.listSdkViews(deps, access);
      return { sdkViews: all.slice(offset, offset + limit).map(toSdkView), count: all.length };
    },
    async getSdkView(req, ctx) {
      const access = environmentOf(ctx);
      return { sdkView: toSdkView(await sdkViews.getSdkView(deps, access, req.sdkViewType)) };
    },
    async updateSdkView(req, ctx) {
      const access = environmentOf(ctx);
      const sections = req.sections.map((s) => ({
        type: s.type,
        ...(s.label ? { label: s.label } : {}),
        ...(s.numOfItemsToDisplay ? { numOfItemsToDisplay: s.numOfItemsToDisplay } : {}),
        ...(s.defaultItem ? { defaultItem: s.defaultItem } : {}),
        ...(s.alignment ? { alignment: s.alignment } : {}),
      }));
      return { sdkView: toSdkView(await sdkViews.updateSdkView(deps, access, req.sdkViewType, sections)) };
    },
  });
}
