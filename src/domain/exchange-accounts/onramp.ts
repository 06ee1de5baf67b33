import { randomUUID } from "node:crypto";
import type { Deps } from "../deps.js";
import { checkRedirectTarget } from "../oauth/redirect-targets.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { okBody, str, time } from "./answers.js";
import { exchangeUnavailable } from "./errors.js";
import { onrampExchange } from "./exchange.js";
import { recordOnrampOrder, type RecordedCaller } from "./records.js";

/** The networks the environment's on-ramp exchange delivers to, as it answers now. */
export async function onrampNetworks(deps: Deps, env: PublicEnvironment): Promise<string[]> {
  const ex = await onrampExchange(deps, env);
  const body = okBody(await deps.exchangeApi.call(ex.target, { method: "GET", path: "/v1/networks" }), ex.record.exchange, "networks", false);
  const list = body.networks;
  if (!Array.isArray(list) || list.some((n) => typeof n !== "string")) throw exchangeUnavailable("the answer has no networks list");
  return list as string[];
}

export interface BuyUrlInput {
  destinationAddress: string;
  networks: string[];
  assets: string[];
  defaultNetwork: string;
  defaultAsset: string;
  defaultExperience: string;
  defaultPaymentMethod: string;
  fiatCurrency: string;
  partnerUserRef: string;
  presetCryptoAmount: string;
  presetFiatAmount: string;
  redirectUrl: string;
}

/**
 * A buy URL of the on-ramp exchange, its parameters signed with the exchange's secret (no call is made). The
 * page the exchange sends the buyer back to must be the app's own (origins, deeplink URLs): never an open redirect.
 */
export async function onrampBuyUrl(deps: Deps, env: PublicEnvironment, input: BuyUrlInput): Promise<string> {
  const ex = await onrampExchange(deps, env);
  const redirectUrl = input.redirectUrl ? await checkRedirectTarget(deps, env.environmentId, input.redirectUrl) : "";
  const params: Record<string, string> = {
    destination_address: input.destinationAddress,
    networks: input.networks.join(","),
    assets: input.assets.join(","),
    default_network: input.defaultNetwork,
    default_asset: input.defaultAsset,
    default_experience: input.defaultExperience,
    default_payment_method: input.defaultPaymentMethod,
    fiat_currency: input.fiatCurrency,
    partner_user_ref: input.partnerUserRef,
    preset_crypto_amount: input.presetCryptoAmount,
    preset_fiat_amount: input.presetFiatAmount,
    redirect_url: redirectUrl,
  };
  for (const k of Object.keys(params)) if (!params[k]) delete params[k];
  return deps.exchangeApi.signedBuyUrl(ex.target, params);
}

export interface OrderInput {
  agreementAcceptedAt: Date;
  destinationAddress: string;
  destinationNetwork: string;
  domain: string;
  isQuote: boolean;
  partnerUserRef: string;
  paymentAmount: string;
  paymentCurrency: string;
  paymentMethod: string;
  purchaseAmount: string;
  purchaseCurrency: string;
}

/**
 * Places an order (or a quote) with the on-ramp exchange; the user's id travels as user_id for the exchange's
 * records. An order is recorded in the audit trail (a quote buys nothing and is not).
 */
export async function createOnrampOrder(deps: Deps, caller: RecordedCaller, input: OrderInput) {
  const { env, userId } = caller;
  const ex = await onrampExchange(deps, env);
  const body = okBody(
    await deps.exchangeApi.call(ex.target, {
      method: "POST",
      path: "/v1/orders",
      headers: { "idempotency-key": randomUUID() },
      body: {
        user_id: userId,
        agreement_accepted_at: input.agreementAcceptedAt.toISOString(),
        destination_address: input.destinationAddress,
        destination_network: input.destinationNetwork,
        domain: input.domain || undefined,
        is_quote: input.isQuote,
        partner_user_ref: input.partnerUserRef,
        payment_amount: input.paymentAmount || undefined,
        payment_currency: input.paymentCurrency,
        payment_method: input.paymentMethod,
        purchase_amount: input.purchaseAmount || undefined,
        purchase_currency: input.purchaseCurrency,
      },
    }),
    ex.record.exchange,
    "order",
    false,
  );
  const o = (body.order ?? null) as Record<string, unknown> | null;
  if (!o || typeof o !== "object" || Array.isArray(o)) throw exchangeUnavailable("the answer has no order");
  const fees = Array.isArray(o.fees) ? (o.fees as Record<string, unknown>[]) : [];
  const link = body.payment_link as Record<string, unknown> | null | undefined;
  const answer = {
    order: {
      orderId: str(o.order_id),
      paymentTotal: str(o.payment_total),
      paymentSubtotal: str(o.payment_subtotal),
      paymentCurrency: str(o.payment_currency),
      paymentMethod: str(o.payment_method),
      purchaseAmount: str(o.purchase_amount),
      purchaseCurrency: str(o.purchase_currency),
      fees: fees.map((f) => ({ type: str(f.type), amount: str(f.amount), currency: str(f.currency) })),
      exchangeRate: str(o.exchange_rate),
      destinationAddress: str(o.destination_address),
      destinationNetwork: str(o.destination_network),
      status: str(o.status),
      createdAt: time(o.created_at),
      updatedAt: time(o.updated_at),
      txHash: str(o.tx_hash),
      partnerUserRef: str(o.partner_user_ref),
    },
    paymentLink: link && typeof link === "object" ? { url: str(link.url), paymentLinkType: str(link.payment_link_type) } : undefined,
  };
  if (!input.isQuote) await recordOnrampOrder(deps, caller, ex, answer.order);
  return answer;
}
