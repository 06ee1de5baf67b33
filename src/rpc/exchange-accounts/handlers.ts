import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { Deps } from "../../domain/deps.js";
import { exchangeTransactions, transferDestinations, transferFromAccount, userAccounts, type ExchangeCaller } from "../../domain/exchange-accounts/accounts.js";
import { finishExchangeLink, startExchangeLink } from "../../domain/exchange-accounts/link.js";
import { createOnrampOrder, onrampBuyUrl, onrampNetworks } from "../../domain/exchange-accounts/onramp.js";
import { renderRedirectPage } from "../../domain/oauth/page.js";
import { SdkExchangeAccountsService } from "../../gen/sigil/exchange_accounts/v0/sdk_exchange_accounts_service_pb.js";
import { endUserOf, requestIdKey } from "../context.js";
import { publicEnvironmentOf } from "../tenant-context.js";

const callerOf = (ctx: HandlerContext): ExchangeCaller => ({ env: publicEnvironmentOf(ctx), userId: endUserOf(ctx).userId, requestId: ctx.values.get(requestIdKey) });
const ts = (d: Date | undefined) => (d ? timestampFromDate(d) : undefined);

/** A browser page; with a location the REST gateway answers 303 See Other. */
function page(ctx: HandlerContext, message: string, location: string | null) {
  const { html, headers } = renderRedirectPage(message, location);
  for (const [name, value] of Object.entries(headers)) ctx.responseHeader.set(name, value);
  if (location) ctx.responseHeader.set("location", location);
  return { page: { contentType: "text/html; charset=utf-8", data: new TextEncoder().encode(html) } };
}

/** The signed-in user's exchange accounts and the exchange on-ramp (the SDK surface). */
export function registerSdkExchangeAccounts(router: ConnectRouter, deps: Deps): void {
  router.service(SdkExchangeAccountsService, {
    async startExchangeLink(req, ctx) {
      const { userId, sessionId } = endUserOf(ctx);
      return startExchangeLink(deps, publicEnvironmentOf(ctx), { userId, sessionId }, { exchangeKey: req.exchangeKey, redirectUrl: req.redirectUrl || null });
    },
    async exchangeOauthRedirect(req, ctx) {
      const done = await finishExchangeLink(deps, publicEnvironmentOf(ctx), { code: req.code, state: req.state, error: req.error }, ctx.values.get(requestIdKey));
      const message = done.linked ? "Exchange account linked. You can close this window." : "Linking the exchange account failed. You can close this window.";
      return page(ctx, message, done.redirectTo);
    },
    async getUserAccounts(req, ctx) {
      const accounts = await userAccounts(deps, callerOf(ctx), req.exchangeKey, {
        networkId: req.networkId === undefined ? undefined : Number(req.networkId),
        chainName: req.chainName || undefined,
      });
      return { accounts };
    },
    async postExchangeAccountTransfer(req, ctx) {
      const t = await transferFromAccount(deps, callerOf(ctx), req.exchangeKey, {
        accountId: req.accountId,
        to: req.to,
        amount: req.amount,
        currency: req.currency,
        network: req.network || req.networkObject?.networkId || "",
        idempotencyKey: req.id,
        description: req.description,
        mfaCode: req.mfaCode,
      });
      return { transfer: { ...t, createdAt: ts(t.createdAt) } };
    },
    async getExchangeTransactions(req, ctx) {
      const list = await exchangeTransactions(deps, callerOf(ctx), req.exchangeKey, req.accountId);
      return { transactions: list.map((x) => ({ ...x, createdAt: ts(x.createdAt) })) };
    },
    async getExchangeTransferDestinations(req, ctx) {
      return transferDestinations(deps, callerOf(ctx), req.exchangeKey);
    },
    async getExchangeSupportedNetworks(_req, ctx) {
      return { networks: await onrampNetworks(deps, publicEnvironmentOf(ctx)) };
    },
    async generateExchangeOnrampBuyUrl(req, ctx) {
      const url = await onrampBuyUrl(deps, publicEnvironmentOf(ctx), {
        destinationAddress: req.destinationAddress,
        networks: req.networks,
        assets: req.assets,
        defaultNetwork: req.defaultNetwork,
        defaultAsset: req.defaultAsset,
        defaultExperience: req.defaultExperience,
        defaultPaymentMethod: req.defaultPaymentMethod,
        fiatCurrency: req.fiatCurrency,
        partnerUserRef: req.partnerUserRef,
        presetCryptoAmount: req.presetCryptoAmount,
        presetFiatAmount: req.presetFiatAmount,
        redirectUrl: req.redirectUrl,
      });
      return { url };
    },
    async createExchangeOnrampOrder(req, ctx) {
      // agreement_accepted_at is declared required: validation answered 400 before a request without it got here.
      const r = await createOnrampOrder(deps, callerOf(ctx), {
        agreementAcceptedAt: timestampDate(req.agreementAcceptedAt!),
        destinationAddress: req.destinationAddress,
        destinationNetwork: req.destinationNetwork,
        domain: req.domain,
        isQuote: req.isQuote,
        partnerUserRef: req.partnerUserRef,
        paymentAmount: req.paymentAmount,
        paymentCurrency: req.paymentCurrency,
        paymentMethod: req.paymentMethod,
        purchaseAmount: req.purchaseAmount,
        purchaseCurrency: req.purchaseCurrency,
      });
      return { order: { ...r.order, createdAt: ts(r.order.createdAt), updatedAt: ts(r.order.updatedAt) }, paymentLink: r.paymentLink };
    },
  });
}
