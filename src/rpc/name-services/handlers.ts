import type { ConnectRouter } from "@connectrpc/connect";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { NameServicesService } from "../../gen/sigil/name_services/v0/name_services_service_pb.js";
import type { NameServiceRecord } from "../../db/repositories/name-services.js";
import type { Deps } from "../../domain/deps.js";
import * as nameServices from "../../domain/name-services/service.js";
import { ts } from "../mappers.js";
import { environmentOf } from "../tenant-context.js";

function toNameService(n: NameServiceRecord) {
  return {
    id: n.id,
    environmentId: n.environmentId,
    chainName: n.chainName,
    domain: n.domain,
    ownerAddress: n.ownerAddress,
    address: n.ownerAddress,
    enabledAt: ts(n.enabledAt),
    createdAt: ts(n.createdAt),
    updatedAt: ts(n.updatedAt),
  };
}

export function registerNameServices(router: ConnectRouter, deps: Deps) {
  const view = (n: NameServiceRecord) => ({ nameService: toNameService(n) });
  router.service(NameServicesService, {
    async getNameService(req, ctx) {
      const access = environmentOf(ctx);
      return view(await nameServices.getNameService(deps, access, req.chainName));
    },
    async createNameService(req, ctx) {
      const access = environmentOf(ctx);
      return view(
        await nameServices.createNameService(deps, access, req.chainName, {
          domain: req.domain,
          address: req.address,
          signature: req.signature,
          message: req.message,
          nonce: req.nonce,
        }),
      );
    },
    async deleteNameService(req, ctx) {
      const access = environmentOf(ctx);
      await nameServices.deleteNameService(deps, access, req.chainName);
      return {};
    },
    async enableNameService(req, ctx) {
      const access = environmentOf(ctx);
      return view(await nameServices.setNameServiceEnabled(deps, access, req.chainName, true));
    },
    async disableNameService(req, ctx) {
      const access = environmentOf(ctx);
      return view(await nameServices.setNameServiceEnabled(deps, access, req.chainName, false));
    },
    async fetchNameServiceSigningMessage(req, ctx) {
      const access = environmentOf(ctx);
      const issued = await nameServices.issueSigningMessage(deps, access, req.chainName, { domain: req.domain, address: req.address });
      return {
        message: issued.message,
        unsignedMessage: issued.message,
        nonce: issued.nonce,
        expiresAt: timestampFromDate(issued.expiresAt),
      };
    },
  });
}
