import { createHash, randomUUID } from "node:crypto";
import { badRequest, notFound } from "../../errors.js";
import type { Deps } from "../deps.js";
import type { PublicEnvironment } from "../tenancy/access.js";
import { amount, listOf, okBody, str, time } from "./answers.js";
import { exchangeOfKey, type UsableExchange } from "./exchange.js";
import { userExchangeToken } from "./link.js";
import type { ExchangeCall } from "./port.js";
import { recordTransfer } from "./records.js";

/** The signed-in user acting on their own linked exchange account, and the request (for the audit trail). */
export interface ExchangeCaller {
  env: PublicEnvironment;
  userId: string;
  requestId: string;
}

export interface ExchangeAccountView {
  id: string;
  exchange: string;
  type: string;
  name: string;
  chain: string;
  balances: { currency: string; balance: number | undefined; availableBalance: number | undefined }[];
}

/** The user's exchange and a caller of it with the user's token: every call here is on the user's own behalf. */
async function userSession(deps: Deps, caller: ExchangeCaller, exchangeKey: string) {
  const ex = await exchangeOfKey(deps, caller.env, exchangeKey);
  const bearer = await userExchangeToken(deps, caller.env, ex, caller.userId);
  const ask = async (call: ExchangeCall, what: string) => okBody(await deps.exchangeApi.call(ex.target, { ...call, bearer }), ex.record.exchange, what, true);
  return { ex, ask };
}

function toAccount(ex: UsableExchange, a: Record<string, unknown>): ExchangeAccountView {
  const balances = Array.isArray(a.balances) ? (a.balances as Record<string, unknown>[]) : [];
  return {
    id: str(a.id),
    exchange: ex.record.exchange,
    type: str(a.type),
    name: str(a.name),
    chain: str(a.chain),
    balances: balances.map((b) => ({ currency: str(b.currency), balance: amount(b.balance), availableBalance: amount(b.available) })),
  };
}

/** The user's accounts at the exchange, as it answers now (networkId / chainName passed on as filters). */
export async function userAccounts(deps: Deps, caller: ExchangeCaller, exchangeKey: string, filter: { networkId?: number; chainName?: string }) {
  const { ex, ask } = await userSession(deps, caller, exchangeKey);
  const query: Record<string, string> = {};
  if (filter.networkId !== undefined) query.network_id = String(filter.networkId);
  if (filter.chainName) query.chain = filter.chainName;
  return listOf(await ask({ method: "GET", path: "/v1/accounts", query }, "exchange accounts"), "accounts").map((a) => toAccount(ex, a));
}

export interface TransferInput {
  accountId: string;
  to: string;
  amount: number;
  currency: string;
  network: string;
  idempotencyKey: string;
  description: string;
  mfaCode: string;
}

/**
 * The Idempotency-Key the exchange sees: the client's key scoped to this environment, user and account.
 * Every user's calls are signed with the same api key, so a raw client key could meet another user's equal
 * one at the exchange and be answered with that user's transfer.
 */
const idempotencyKey = (caller: ExchangeCaller, accountId: string, key: string) =>
  createHash("sha256").update(`${caller.env.environmentId}\n${caller.userId}\n${accountId}\n${key}`).digest("base64url");

/**
 * Moves funds out of one of the user's own accounts. The account must be in the exchange's list of the
 * user's accounts (asked with the user's token) before the transfer is sent: another user's account id is a
 * 404 and nothing is asked to move. The idempotency key makes a retried request one transfer. A transfer
 * the exchange accepted is recorded in the audit trail once (a refusal moved nothing and is only answered).
 */
export async function transferFromAccount(deps: Deps, caller: ExchangeCaller, exchangeKey: string, input: TransferInput) {
  if (!(Number.isFinite(input.amount) && input.amount > 0)) throw badRequest("invalid_amount", "amount must be a positive number", { field: "amount" });
  const { ex, ask } = await userSession(deps, caller, exchangeKey);
  const own = listOf(await ask({ method: "GET", path: "/v1/accounts" }, "exchange accounts"), "accounts");
  if (!own.some((a) => str(a.id) === input.accountId)) throw notFound("exchange account");
  const headers: Record<string, string> = { "idempotency-key": idempotencyKey(caller, input.accountId, input.idempotencyKey || randomUUID()) };
  if (input.mfaCode) headers["x-exchange-2fa"] = input.mfaCode;
  const t = await ask(
    {
      method: "POST",
      path: `/v1/accounts/${encodeURIComponent(input.accountId)}/transfers`,
      headers,
      body: { to: input.to, amount: String(input.amount), currency: input.currency, network: input.network || undefined, description: input.description || undefined },
    },
    "exchange account",
  );
  const transfer = {
    id: str(t.id),
    exchangeAccountId: str(t.account_id) || input.accountId,
    status: str(t.status),
    amount: amount(t.amount),
    currency: str(t.currency),
    createdAt: time(t.created_at),
  };
  await recordTransfer(deps, caller, ex, {
    exchangeAccountId: transfer.exchangeAccountId,
    to: input.to,
    amount: input.amount,
    currency: input.currency,
    network: input.network,
    transferId: transfer.id,
    status: transfer.status,
  });
  return transfer;
}

/** The user's recent transactions at the exchange, of one account when given. */
export async function exchangeTransactions(deps: Deps, caller: ExchangeCaller, exchangeKey: string, accountId: string) {
  const { ask } = await userSession(deps, caller, exchangeKey);
  const body = await ask({ method: "GET", path: "/v1/transactions", query: accountId ? { account_id: accountId } : {} }, "exchange account");
  return listOf(body, "transactions").map((x) => ({
    transactionId: str(x.id),
    transactionHash: str(x.hash),
    status: str(x.status),
    amount: amount(x.amount),
    currency: str(x.currency),
    createdAt: time(x.created_at),
  }));
}

/** Where the user's exchange account may send, and whether the exchange allows only those addresses. */
export async function transferDestinations(deps: Deps, caller: ExchangeCaller, exchangeKey: string) {
  const { ask } = await userSession(deps, caller, exchangeKey);
  const body = await ask({ method: "GET", path: "/v1/transfer-destinations" }, "transfer destinations");
  return {
    destinations: listOf(body, "destinations").map((d) => ({ address: str(d.address), tokens: Array.isArray(d.tokens) ? d.tokens.map(str) : [] })),
    enforcesAddressWhitelist: body.enforces_address_whitelist === true,
  };
}
