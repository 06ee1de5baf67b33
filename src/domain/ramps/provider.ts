/**
 * The on-ramp / off-ramp provider, as a port (implemented in src/adapters/ramp-provider.ts). Every method
 * answers what the provider said, or throws provider_unavailable (503) / provider_rejected (422).
 */

/** Where the crypto goes (on-ramp) or comes from (off-ramp), as the client asked, its address canonical. */
export interface RampQuery {
  walletAddress: string;
  chain: string;
  networkId?: string;
  token?: string;
  tokenAmount?: number;
  currency?: string;
  merchantName?: string;
}

/** One way to buy or sell, in the published client's RampConfiguration shape; `url` is signed by Sigil. */
export interface RampOption {
  /** The provider's id of the method (e.g. "card"): the provider's word, passed on. */
  provider: string;
  name: string;
  iconUrl: string;
  url: string;
  qrCode?: string;
}

/** A card payment to ask for, in the published client's payment-create shape (amount in the currency's smallest unit). */
export interface CardPaymentInput {
  amount: number;
  currency: string;
  walletAddress: string;
  chain: string;
  networkId?: string;
  description?: string;
  orderId?: string;
  subMerchantId?: string;
  merchantName?: string;
  metadata?: Record<string, unknown>;
}

/** The payment the provider created, in the published client's payment-response shape. */
export interface CardPayment {
  id: string;
  amount: number;
  currency: string;
  paymentUrl: string;
  qrCode: string;
  status: string;
  [optional: string]: unknown;
}

export interface RampProvider {
  onramps(query: RampQuery): Promise<RampOption[]>;
  offramps(query: RampQuery): Promise<RampOption[]>;
  /** Creates a payment; the provider deduplicates on `idempotencyKey` when one is given. */
  createCardPayment(input: CardPaymentInput, idempotencyKey: string | undefined): Promise<CardPayment>;
}
