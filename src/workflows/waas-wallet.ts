import {
  ApplicationFailure,
  ActivityFailure,
  ChildWorkflowFailure,
  condition,
  executeChild,
  currentUpdateInfo,
  defineUpdate,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
} from "@temporalio/workflow";
import type { Activities } from "../activities/index.js";
import type { RoomOperationInput, RoomOperationName } from "../domain/waas/threshold/share-operations.js";
import type { BackupStep, BackupStepResult, RecoverStep, RecoverStepResult } from "../domain/waas/threshold/backup-steps.js";
import { walletExportWorkflow } from "./wallet-export.js";
import { SEARCH_ATTRIBUTES } from "./search-attributes.js";
import { SHARE_STEP_OPTIONS } from "./share-steps.js";
import { DEFAULT_ACTOR_POLICY, actorInbox, type ActorPolicy } from "./actor.js";

const acts = proxyActivities<Activities>(SHARE_STEP_OPTIONS);

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

export interface RunRoomUpdateInput extends WalletScoped, RoomOperationInput {
  operation: RoomOperationName;
  /** Export rooms: the id of the export's own workflow (wallet-export/<walletId>/<exportId>, src/temporal/ids.ts). */
  exportWorkflowId?: string;
}

/** Runs the room's operation; its result (or error) is written into the room, which the caller reads. */
export const runRoomUpdate = defineUpdate<void, [RunRoomUpdateInput]>("runRoom");
/** FROST round 1 of a Solana signing room: the server's commitments go into the room before the device's. */
export const commitSignUpdate = defineUpdate<void, [WalletScoped & RoomOperationInput]>("commitSign");

/** The Updates' inputs: the step less the actor's own wallet and user. */
export type BackupUpdateInput = WalletScoped & Omit<BackupStep, "walletId" | "userId">;
export type RecoverUpdateInput = WalletScoped & Omit<RecoverStep, "walletId" | "userId">;
/** Backs up the current share set (helper B2, src/activities/waas-backup.ts): serialised with refresh/reshare. */
export const backupUpdate = defineUpdate<BackupStepResult, [BackupUpdateInput]>("backup");
/** Reads the current set's backups back and restores a lost server share from the vault. */
export const recoverUpdate = defineUpdate<RecoverStepResult, [RecoverUpdateInput]>("recover");

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

  /** keygen / import / refresh / reshare: a new set, promoted, the old destroyed, the room answered. */
  const newShareSet = async (roomId: string, operationId: string) => {
    const { shareSetId } = await acts.writeRoomShareSet({ ...wallet, roomId, operationId });
    await promote(shareSetId);
    await acts.completeRoomShareSet({ ...wallet, roomId, shareSetId });
  };
  const runRoom = async (u: RunRoomUpdateInput, operationId: string) => {
    if (u.operation === "sign") return acts.signRoom({ ...wallet, roomId: u.roomId });
    if (u.operation === "export") {
      // Its own workflow, so that an operator finds every export by its id in the Temporal UI.
      return executeChild(walletExportWorkflow, {
        workflowId: u.exportWorkflowId!,
        args: [{ ...wallet, roomId: u.roomId, userId: input.userId }],
        workflowIdReusePolicy: "REJECT_DUPLICATE",
        staticSummary: `Export of WaaS wallet ${input.walletId}`,
      });
    }
    return newShareSet(u.roomId, operationId);
  };

  setHandler(
    runRoomUpdate,
    (u) =>
      serialised(u.operation, async (operationId) => {
        try {
          await runRoom(u, operationId);
        } catch (err) {
          // The device reads the outcome in the room: a refused operation says why there too.
          const failure = applicationFailureOf(err);
          if (failure) await acts.failRoom({ environmentId: input.environmentId, roomId: u.roomId, error: failure });
          throw err;
        }
      }),
    { validator: (u) => requireFields(input, u, u?.operation === "export" ? ["roomId", "operation", "exportWorkflowId"] : ["roomId", "operation"]) },
  );
  setHandler(commitSignUpdate, (u) => serialised("commitSign", () => acts.commitRoomSign({ ...wallet, roomId: u.roomId })), {
    validator: (u) => requireFields(input, u, ["roomId"]),
  });
  setHandler(
    backupUpdate,
    (u) => serialised("backup", () => acts.backupWaasShares({ ...wallet, credentials: u.credentials, toVault: u.toVault, location: u.location, audit: u.audit })),
    { validator: (u) => requireFields(input, u, ["credentials", "toVault", "location", "audit"]) },
  );
  setHandler(recoverUpdate, (u) => serialised("recover", () => acts.recoverWaasShares({ ...wallet, keyShareIds: u.keyShareIds, audit: u.audit })), {
    validator: (u) => requireFields(input, u, ["keyShareIds", "audit"]),
  });

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

/** The domain error an operation failed with (an activity's non-retryable failure, maybe through the export child). */
function applicationFailureOf(err: unknown): { kind: string; code: string; message: string; payload?: unknown } | null {
  let cause: unknown = err;
  while (cause instanceof ActivityFailure || cause instanceof ChildWorkflowFailure) cause = cause.cause;
  if (!(cause instanceof ApplicationFailure)) return null;
  const d = (cause.details?.[0] ?? {}) as { kind?: string; code?: string; payload?: unknown };
  return { kind: d.kind ?? "unprocessable", code: d.code ?? cause.type ?? "operation_failed", message: cause.message, ...(d.payload ? { payload: d.payload } : {}) };
}
