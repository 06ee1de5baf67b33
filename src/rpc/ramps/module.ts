import type { ConnectRouter } from "@connectrpc/connect";
import { fromJson, type JsonObject } from "@bufbuild/protobuf";
import { createCardPayment } from "../../domain/ramps/card-payment.js";
import type { CardPayment } from "../../domain/ramps/provider.js";
import { supportedOfframps, supportedOnramps } from "../../domain/ramps/service.js";
import type { Deps } from "../../domain/deps.js";
import { CardPaymentSchema } from "../../gen/sigil/ramps/v0/ramps_pb.js";
import { SdkRampsService, file_sigil_ramps_v0_sdk_ramps_service } from "../../gen/sigil/ramps/v0/sdk_ramps_service_pb.js";
import { endUserOf, requestIdKey } from "../context.js";
import type { ApiModule } from "../module.js";
import { publicEnvironmentOf } from "../tenant-context.js";

/** The payment message from its JSON form (the published client's field names are the message's JSON names). */
const toPayment = (p: CardPayment) => fromJson(CardPaymentSchema, p as JsonObject, { ignoreUnknownFields: true });

function register(router: ConnectRouter, deps: Deps) {
  router.service(SdkRampsService, {
    async getSupportedOnramps(req, ctx) {
      const onramps = await supportedOnramps(deps, publicEnvironmentOf(ctx), {
        walletAddress: req.walletAddress, chain: req.chain, networkId: req.networkId, token: req.token, tokenAmount: req.tokenAmount, currency: req.currency, merchantName: req.merchantName,
      });
      return { onramps };
    },
    async getSupportedOfframps(req, ctx) {
      return { offramps: await supportedOfframps(deps, publicEnvironmentOf(ctx), { walletAddress: req.walletAddress, chain: req.chain, networkId: req.networkId, token: req.token }) };
    },
    async createCardOnrampPayment(req, ctx) {
      const payment = await createCardPayment(
        deps,
        publicEnvironmentOf(ctx),
        { userId: endUserOf(ctx).userId, requestId: ctx.values.get(requestIdKey) },
        {
          amount: req.amount, currency: req.currency, walletAddress: req.walletAddress, chain: req.chain, networkId: req.networkId, description: req.description,
          orderId: req.orderId, subMerchantId: req.subMerchantId, merchantName: req.merchantName, metadata: req.metadata,
        },
        ctx.requestHeader.get("idempotency-key"),
      );
      return { payment: toPayment(payment) };
    },
  });
}

/** On-ramps, off-ramps and card payments for client apps, answered by the environment's ramp provider (else the operator's). */
export const rampsModule: ApiModule = {
  services: [SdkRampsService],
  files: [file_sigil_ramps_v0_sdk_ramps_service],
  register,
};
