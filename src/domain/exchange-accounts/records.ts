import type { Queryable } from "../../db/db.js";
import { lockExternalRecord } from "../../db/repositories/audit.js";
import { lockLink, upsertLink, type ExchangeLinkRecord } from "../../db/repositories/exchange-accounts.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import { endUserAccess } from "../sessions/service.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import type { UsableExchange } from "./exchange.js";

/**
 * The audit trail of exchange accounts: linking a financial account, moving money out of it and ordering
 * crypto with money are on the record, under the end user who did it. The catalogue names no event for either, so no webhook is sent.
 * Snapshots never hold a token (sealed or not), a 2FA code or an idempotency key.
 */

/** Who acts, and the request to record it under. */
export interface RecordedCaller {
  env: PublicEnvironment;
  userId: string;
  requestId: string;
}

const linkSnapshot = (l: ExchangeLinkRecord, exchange: string) => ({
  id: l.id,
  userId: l.userId,
  exchangeId: l.exchangeId,
  exchange,
  scope: l.scope,
  expiresAt: l.expiresAt,
});

/**
 * Stores the tokens of a completed OAuth link and records it in the same transaction: `linked` the first
 * time, `relinked` when a new grant replaces the tokens (the user may have signed in as another login at
 * the exchange). Null when the user or the connection is gone.
 */
export async function storeLinkRecorded(
  deps: Pick<Deps, "db">,
  caller: RecordedCaller,
  ex: UsableExchange,
  sealed: Omit<ExchangeLinkRecord, "environmentId" | "exchangeId" | "userId">,
): Promise<ExchangeLinkRecord | null> {
  const environmentId = caller.env.environmentId;
  return audited(deps, endUserAccess(caller.env, caller.userId, caller.requestId), async (t: Queryable, record) => {
    const before = await lockLink(t, environmentId, ex.record.id, caller.userId);
    const stored = await upsertLink(t, environmentId, { ...sealed, exchangeId: ex.record.id, userId: caller.userId });
    if (!stored) return null;
    const { created: _created, ...link } = stored;
    const after = linkSnapshot(link, ex.record.exchange);
    if (before) await record({ action: "exchange_account.relinked", resourceType: "exchange_account", resourceId: link.id, before: linkSnapshot(before, ex.record.exchange), after });
    else await record({ action: stored.created ? "exchange_account.linked" : "exchange_account.relinked", resourceType: "exchange_account", resourceId: link.id, after });
    return link;
  });
}

/** A transfer the exchange accepted, as recorded. */
export interface AcceptedTransfer {
  exchangeAccountId: string;
  to: string;
  amount: number;
  currency: string;
  network: string;
  /** The exchange's id of the transfer: the same for every retry of one idempotency key. */
  transferId: string;
  status: string;
}

/**
 * Records a transfer once the exchange has accepted it. A retry of the same idempotency key is answered the
 * same transfer by the exchange and records nothing more: the row is about the money that moved, and the
 * first request's row already says so. Recording after the exchange answered also heals a lost write: a
 * request whose row failed is retried by the client with its key, and the retry records it.
 */
export async function recordTransfer(deps: Pick<Deps, "db">, caller: RecordedCaller, ex: UsableExchange, t: AcceptedTransfer): Promise<void> {
  const environmentId = caller.env.environmentId;
  await audited(deps, endUserAccess(caller.env, caller.userId, caller.requestId), async (q, record) => {
    // Without an id of the exchange's there is nothing to tell a retry by: each answer is recorded.
    const once = { action: "exchange_account.transfer_requested", resourceType: "exchange_transfer", resourceId: t.transferId, after: { field: "exchangeId", value: ex.record.id } };
    if (t.transferId && (await lockExternalRecord(q, environmentId, once))) return;
    await record({
      action: "exchange_account.transfer_requested",
      resourceType: "exchange_transfer",
      resourceId: t.transferId,
      after: {
        exchange: ex.record.exchange,
        exchangeId: ex.record.id,
        userId: caller.userId,
        exchangeAccountId: t.exchangeAccountId,
        to: t.to,
        amount: t.amount,
        currency: t.currency,
        network: t.network || null,
        transferId: t.transferId,
        status: t.status,
      },
    });
  });
}

/** An on-ramp order the exchange accepted (a quote is none: it buys nothing), as recorded. */
export interface AcceptedOrder {
  orderId: string;
  destinationAddress: string;
  destinationNetwork: string;
  paymentTotal: string;
  paymentCurrency: string;
  paymentMethod: string;
  purchaseAmount: string;
  purchaseCurrency: string;
  status: string;
}

/**
 * Records an on-ramp order. Each request is an order of its own at the exchange (Sigil sends a fresh
 * idempotency key), so each is a row. The payment link is left out: it is the buyer's way to pay.
 */
export async function recordOnrampOrder(deps: Pick<Deps, "db">, caller: RecordedCaller, ex: UsableExchange, o: AcceptedOrder): Promise<void> {
  await audited(deps, endUserAccess(caller.env, caller.userId, caller.requestId), (_t, record) =>
    record({
      action: "exchange_onramp_order.created",
      resourceType: "exchange_onramp_order",
      resourceId: o.orderId,
      after: {
        exchange: ex.record.exchange,
        exchangeId: ex.record.id,
        userId: caller.userId,
        orderId: o.orderId,
        destinationAddress: o.destinationAddress,
        destinationNetwork: o.destinationNetwork,
        paymentTotal: o.paymentTotal,
        paymentCurrency: o.paymentCurrency,
        paymentMethod: o.paymentMethod,
        purchaseAmount: o.purchaseAmount,
        purchaseCurrency: o.purchaseCurrency,
        status: o.status,
      },
    }),
  );
}
