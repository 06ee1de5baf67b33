import { ChainEnum, SDKApi } from "@dynamic-labs/sdk-api";
import { neutralWords } from "../../support/neutral-words.js";
import { signInAs } from "../../support/sessions.js";
import type { CompatContext, Scenarios } from "../harness.js";

const WALLET = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
/** The client at the contract's neutral paths (the card payment's client path names its vendor). */
const sdk = (ctx: CompatContext, jwt?: string) => (jwt ? ctx.api(SDKApi, jwt) : ctx.api(SDKApi)).withMiddleware(neutralWords);

/**
 * SDKApi: exchange rates from a price source, on-ramps, off-ramps and a card payment from a ramp provider
 * (loopback peers of the protocols, started by test/compat/sdk-ramps.test.ts).
 */
export const sdkRampsApi: Scenarios = {
  "SDKApi.getCurrencyExchangeRates": (ctx) => sdk(ctx).getCurrencyExchangeRates({ environmentId: ctx.tenant.environmentId }),
  "SDKApi.getSupportedOnramps": (ctx) =>
    sdk(ctx).getSupportedOnramps({ environmentId: ctx.tenant.environmentId, walletAddress: WALLET, chain: ChainEnum.Evm, networkId: "1", token: "USDC", tokenAmount: 10, currency: "USD" }),
  "SDKApi.getSupportedOfframps": (ctx) => sdk(ctx).getSupportedOfframps({ environmentId: ctx.tenant.environmentId, walletAddress: WALLET, chain: ChainEnum.Evm }),
  "SDKApi.createCryptoDotComPayment": async (ctx) => {
    const user = await signInAs(ctx.app, ctx.tenant.environmentId);
    return sdk(ctx, user.jwt).createCryptoDotComPayment({
      environmentId: ctx.tenant.environmentId,
      cryptoDotComPaymentCreateRequest: { amount: 1000, currency: "USD", walletAddress: WALLET, chain: ChainEnum.Evm, orderId: "compat-1" },
    });
  },
  // The browser preflights (OPTIONS) the client declares on these paths.
  "SDKApi.getCurrencyExchangeRatesOptions": (ctx) => sdk(ctx).getCurrencyExchangeRatesOptions({ environmentId: ctx.tenant.environmentId }),
  "SDKApi.onrampsOptions": (ctx) => sdk(ctx).onrampsOptions({ environmentId: ctx.tenant.environmentId }),
  "SDKApi.offrampsOptions": (ctx) => sdk(ctx).offrampsOptions({ environmentId: ctx.tenant.environmentId }),
  "SDKApi.cryptoDotComPaymentOptions": (ctx) => sdk(ctx).cryptoDotComPaymentOptions({ environmentId: ctx.tenant.environmentId }),
};
