import type { ConnectRouter } from "@connectrpc/connect";
import { EmbeddedWalletsService } from "../../gen/sigil/embedded_wallets/v0/embedded_wallets_service_pb.js";
import { badRequest } from "../../errors.js";
import type { Deps } from "../../domain/deps.js";
import * as embedded from "../../domain/embedded-wallets/service.js";
import { orNull } from "../mappers.js";
import { toUser } from "../users/mappers.js";
import { environmentOf } from "../tenant-context.js";

export function registerEmbeddedWallets(router: ConnectRouter, deps: Deps) {
  router.service(EmbeddedWalletsService, {
    async createEmbeddedWallet(req, ctx) {
      const access = environmentOf(ctx);
      const identifier = embedded.parseIdentifier(req.type, req.identifier);
      const chains = embedded.chainsOf(req.chains, req.chain);
      return { user: toUser(await embedded.pregenerateEmbeddedWallets(deps, access, identifier, chains)) };
    },
    async createEmbeddedWalletFromDecentralizedSocial(req, ctx) {
      const access = environmentOf(ctx);
      if (req.fid < 0n) throw badRequest("invalid_fid", "fid must be a positive integer", { field: "fid" });
      if (req.fid === 0n && !req.username) throw badRequest("fid_or_username_required", "fid or username is required", { field: "fid" });
      const chains = embedded.chainsOf(req.chains);
      const identifier = {
        type: "decentralizedSocial" as const,
        fid: req.fid > 0n ? req.fid.toString() : null,
        username: orNull(req.username),
        email: orNull(req.email.trim()),
      };
      return { user: toUser(await embedded.pregenerateEmbeddedWallets(deps, access, identifier, chains)) };
    },
    async getEmbeddedWalletVersions(req, ctx) {
      const access = environmentOf(ctx);
      return embedded.embeddedWalletVersions(deps, access);
    },
  });
}
