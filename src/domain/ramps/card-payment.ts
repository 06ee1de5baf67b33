import { createHash } from "node:crypto";
import { badRequest, unprocessable } from "../../errors.js";
import { lockExternalRecord } from "../../db/repositories/audit.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import { endUserAccess } from "../sessions/service.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import type { CardPayment, CardPaymentInput } from "./provider.js";
import { currencyOf, networkIdOf, rampProviderOf, walletOf, type RampDeps } from "./service.js";

/** How long a retry with the same Idempotency-Key answers the first payment: a day outlives any client's retries. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
const MAX_IDEMPOTENCY_KEY_CHARS = 128;

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/** The request, checked and in canonical form (the provider and the idempotency digest see the same thing). */
function paymentInput(input: CardPaymentInput): CardPaymentInput {
  if (!Number.isSafeInteger(input.amount) || input.amount <= 0)
    throw badRequest("invalid_amount", "amount must be a positive whole number of the currency's smallest unit (100 = 1.00)", { field: "amount" });
  const clean = <T>(v: T | undefined | "") => (v === "" ? undefined : v);
  return {
    amount: input.amount,
    currency: currencyOf(input.currency)!,
    walletAddress: walletOf(input.chain, input.walletAddress),
    chain: input.chain,
    networkId: networkIdOf(input.networkId),
    description: clean(input.description),
    orderId: clean(input.orderId),
    subMerchantId: clean(input.subMerchantId),
    merchantName: clean(input.merchantName),
    metadata: input.metadata,
  };
}

/**
 * Creates a card payment through the ramp provider. With an idempotency key, the answer is kept
 * IDEMPOTENCY_TTL_SECONDS in the shared store under the environment, the user and the key: a retry (a
 * client that lost the answer) gets the same payment without a second one at the provider; the same key
 * with another request is 422 idempotency_key_reused. Two first calls racing both reach the provider with
 * the key, which deduplicates them (the protocol passes it on as Idempotency-Key).
 */
export async function createCardPayment(
  deps: RampDeps & Pick<Deps, "store">,
  env: PublicEnvironment,
  who: { userId: string; requestId: string },
  raw: CardPaymentInput,
  idempotencyKey: string | null,
): Promise<CardPayment> {
  const caller = { environmentId: env.environmentId, userId: who.userId };
  const provider = await rampProviderOf(deps, env);
  if (idempotencyKey !== null && (idempotencyKey.length === 0 || idempotencyKey.length > MAX_IDEMPOTENCY_KEY_CHARS || !/^[\x21-\x7e]+$/.test(idempotencyKey)))
    throw badRequest("invalid_idempotency_key", `Idempotency-Key must be 1-${MAX_IDEMPOTENCY_KEY_CHARS} visible ASCII characters`, { field: "Idempotency-Key" });
  const input = paymentInput(raw);
  if (idempotencyKey === null) return recordPayment(deps, env, who, input, await provider.createCardPayment(input, undefined));
  const key = `ramp-card-payment:v1:${caller.environmentId}:${caller.userId}:${sha(idempotencyKey)}`;
  const digest = sha(JSON.stringify(input));
  const hit = await deps.store.get(key);
  if (hit) {
    const kept = JSON.parse(hit) as { digest: string; payment: CardPayment };
    if (kept.digest !== digest) throw unprocessable("idempotency_key_reused", "this Idempotency-Key was used for another payment request", { field: "Idempotency-Key" });
    return kept.payment;
  }
  // The provider sees a key scoped to the environment and user, so two users' equal keys never meet there.
  const payment = await recordPayment(deps, env, who, input, await provider.createCardPayment(input, sha(`${caller.environmentId}:${caller.userId}:${idempotencyKey}`).slice(0, 64)));
  await deps.store.set(key, JSON.stringify({ digest, payment }), IDEMPOTENCY_TTL_SECONDS);
  return payment;
}

/**
 * Records a payment the provider made, under the end user, once per provider payment id: two racing first
 * calls with one key are answered the same payment by the provider, and the second adds no row. Recorded after
 * the provider answered (nothing is recorded for a refusal); the snapshot holds no idempotency key.
 */
async function recordPayment(
  deps: Pick<Deps, "db">,
  env: PublicEnvironment,
  who: { userId: string; requestId: string },
  input: CardPaymentInput,
  payment: CardPayment,
): Promise<CardPayment> {
  const once = { action: "card_onramp_payment.created", resourceType: "card_onramp_payment", resourceId: payment.id };
  await audited(deps, endUserAccess(env, who.userId, who.requestId), async (q, record) => {
    if (await lockExternalRecord(q, env.environmentId, once)) return;
    await record({
      ...once,
      after: {
        paymentId: payment.id,
        userId: who.userId,
        amount: payment.amount,
        currency: payment.currency,
        walletAddress: input.walletAddress,
        chain: input.chain,
        networkId: input.networkId ?? null,
        orderId: input.orderId ?? null,
        status: payment.status,
      },
    });
  });
  return payment;
}
