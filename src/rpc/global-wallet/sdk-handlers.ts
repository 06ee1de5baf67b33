import type { ConnectRouter } from "@connectrpc/connect";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Deps } from "../../domain/deps.js";
import { connectApp, disconnectConnection, type ConnectionCaller } from "../../domain/global-wallet/connections.js";
import { SdkGlobalWalletService } from "../../gen/sigil/global_wallet/v0/sdk_global_wallet_service_pb.js";
import { endUserOf, requestIdKey } from "../context.js";
import { publicEnvironmentOf } from "../tenant-context.js";
import { toConnection } from "./mappers.js";

type Ctx = Parameters<typeof publicEnvironmentOf>[0] & { requestHeader: Headers };

const callerOf = (ctx: Ctx): ConnectionCaller => ({ env: publicEnvironmentOf(ctx), userId: endUserOf(ctx).userId, requestId: ctx.values.get(requestIdKey) });

/** The signed-in user's global wallet connections (the SDK surface). */
export function registerSdkGlobalWallet(router: ConnectRouter, deps: Deps): void {
  router.service(SdkGlobalWalletService, {
    async createGlobalWalletConnection(req, ctx) {
      // expires_at is declared required: validation answered 400 before a request without it got here.
      const input = { appUrl: req.appUrl || null, originHeader: ctx.requestHeader.get("origin"), expiresAt: timestampDate(req.expiresAt!) };
      return { connection: toConnection(await connectApp(deps, callerOf(ctx), input)) };
    },
    async disconnectGlobalWalletConnection(req, ctx) {
      return { connection: toConnection(await disconnectConnection(deps, callerOf(ctx), req.globalWalletConnectionId)) };
    },
  });
}
