import {
  ApplicationFailure,
  condition,
  currentUpdateInfo,
  defineUpdate,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
} from "@temporalio/workflow";
import type { Activities } from "../activities/index.js";
import type { HolderKey, HolderShareInput, ShareSetView, WaasChain, WaasScheme } from "../domain/waas/share-operations.js";
import { SEARCH_ATTRIBUTES } from "./search-attributes.js";
import { DEFAULT_ACTOR_POLICY, actorInbox, type ActorPolicy } from "./actor.js";

// Share steps: bad input fails at once (the activities throw non-retryable failures); anything else (the
// database away, a worker killed mid-step) is retried, and each step finds what an earlier attempt did.
const acts = proxyActivities<Activities>({
  startToCloseTimeout: "30 seconds",
  retry: { initialInterval: "500 milliseconds", maximumInterval: "10 seconds", maximumAttempts: 20 },
});

export interface WaasWalletInput {
  environmentId: string;
  walletId: string;
  userId: string | null;
  /** Tests and the history recorder lower it; production uses DEFAULT_ACTOR_POLICY. */
  policy?: Partial<ActorPolicy>;
}

/**
 * Every Update names the environment it acts for; the actor refuses one of another environment (the
 * callers check tenancy first; this keeps a wrong wallet id from ever reaching another tenant's shares).
 */
export interface WalletScoped {
  environmentId: string;
}

export interface CreateShareSetUpdateInput extends WalletScoped {
  chain: WaasChain;
  scheme: WaasScheme;
  /** A key for every holder but the server (index 1): its share comes back encrypted to it. */
  holderKeys: HolderKey[];
}
export type CreateShareSetUpdateResult = ShareSetView & { address: string; publicKey: string };

export interface RefreshUpdateInput extends WalletScoped {
  /** Every holder but the server, with its current share: new shares come back encrypted to the same keys. */
  holders: HolderShareInput[];
}

export interface SignUpdateInput extends WalletScoped {
  /** 32-byte hex digest of an EVM message, typed data or transaction. */
  digest: string;
  /** The device's share (encrypted to its key), opened in the signing activity only. */
  holder: HolderShareInput;
}
export interface SignUpdateResult {
  signature: string;
  r: string;
  s: string;
  recovery: number;
}

export const createShareSetUpdate = defineUpdate<CreateShareSetUpdateResult, [CreateShareSetUpdateInput]>("createShareSet");
export const refreshUpdate = defineUpdate<ShareSetView, [RefreshUpdateInput]>("refresh");
export const signUpdate = defineUpdate<SignUpdateResult, [SignUpdateInput]>("sign");

/**
 * The actor of one WaaS wallet (workflow id waas-wallet/<walletId>, src/temporal/ids.ts): owns the wallet's
 * key-share lifecycle. Operations arrive as Updates (Update-with-Start, src/temporal/actor.ts) and run one
 * at a time in arrival order: a queue inside the workflow, so two operations on one wallet never interleave,
 * while other wallets are other workflows and run in parallel. The state is in Postgres (the share sets and
 * their epochs), so the input is only the wallet; the actor continues as new when its history grows and
 * ends after a quiet while (the next operation starts it again).
 *
 * A new share set is written pending, promoted (current + previous retired, one transaction), then the
 * retired shares are destroyed: whatever step a crash interrupts, exactly one set is current.
 */
export async function waasWalletWorkflow(input: WaasWalletInput): Promise<void> {
  const policy = { ...DEFAULT_ACTOR_POLICY, ...input.policy };
  const inbox = actorInbox(policy);
  const wallet = { environmentId: input.environmentId, walletId: input.walletId };
  upsertMemo({ environmentId: input.environmentId, walletId: input.walletId, userId: input.userId });
  upsertSearchAttributes([
    { key: SEARCH_ATTRIBUTES.environmentId, value: input.environmentId },
    ...(input.userId ? [{ key: SEARCH_ATTRIBUTES.userId, value: input.userId }] : []),
  ]);

  // The queue: each operation chains after the previous one (deterministic: promises resolve in order).
  let tail: Promise<unknown> = Promise.resolve();
  let started = 0;
  let running = 0;
  const serialised = <T>(operation: string, run: (operationId: string) => Promise<T>): Promise<T> => {
    started++;
    running++;
    // The Update id names the operation: a client retrying it with the same id reaches the same result, and
    // the activities key their writes by it.
    const operationId = currentUpdateInfo()?.id ?? `${operation}-${started}`;
    const result = tail.then(() => {
      upsertSearchAttributes([{ key: SEARCH_ATTRIBUTES.operation, value: operation }]);
      setCurrentDetails(`Running ${operation} (${operationId}).`);
      return run(operationId);
    });
    tail = result.then(
      () => setCurrentDetails(`Idle; last: ${operation}.`),
      () => setCurrentDetails(`Idle; last: ${operation} (failed).`),
    );
    void tail.then(() => running--);
    return result;
  };

  /** pending -> current (previous retired) -> previous shares destroyed. */
  const promote = async (shareSetId: string) => {
    await acts.promoteWaasShareSet({ ...wallet, shareSetId });
    await acts.destroyRetiredWaasShares(wallet);
  };

  setHandler(
    createShareSetUpdate,
    (u) =>
      serialised("createShareSet", async (operationId) => {
        const set = await acts.createWaasShareSet({ ...wallet, userId: input.userId, chain: u.chain, scheme: u.scheme, operationId, holderKeys: u.holderKeys });
        await promote(set.shareSetId);
        return set;
      }),
    { validator: (u) => requireFields(input, u, ["chain", "scheme", "holderKeys"]) },
  );
  setHandler(
    refreshUpdate,
    (u) =>
      serialised("refresh", async (operationId) => {
        const set = await acts.refreshWaasShareSet({ ...wallet, operationId, holders: u.holders });
        await promote(set.shareSetId);
        return set;
      }),
    { validator: (u) => requireFields(input, u, ["holders"]) },
  );
  setHandler(
    signUpdate,
    (u) => serialised("sign", () => acts.signWaasDigest({ ...wallet, digest: u.digest, holder: u.holder })),
    { validator: (u) => requireFields(input, u, ["digest", "holder"]) },
  );

  for (;;) {
    const seen = started;
    // Woken by a new operation (or a full history); otherwise, after a quiet while, the actor ends.
    const busy = await condition(() => started !== seen || inbox.historyFull(), policy.idleMs);
    // Continue as new / end only between operations (inbox.continueAsNew also waits for every handler).
    await condition(() => running === 0);
    if (inbox.historyFull()) return inbox.continueAsNew<[WaasWalletInput]>(input);
    if (!busy) return;
  }
}

/** Rejected before it enters the history: an Update of another environment, or without its fields. */
function requireFields(wallet: WaasWalletInput, u: unknown, fields: string[]): void {
  const given = typeof u === "object" && u !== null ? (u as Record<string, unknown>) : {};
  // Answered like a wallet that does not exist: another tenant learns nothing.
  if (given.environmentId !== wallet.environmentId) throw ApplicationFailure.nonRetryable("wallet not found", "not_found");
  const missing = fields.filter((f) => given[f] === undefined);
  if (missing.length) throw ApplicationFailure.nonRetryable(`missing ${missing.join(", ")}`, "invalid_request");
}
