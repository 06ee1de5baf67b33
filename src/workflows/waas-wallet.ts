import { ApplicationFailure, executeChild, defineUpdate, proxyActivities, setHandler, upsertMemo, upsertSearchAttributes } from "@temporalio/workflow";
import type { Activities } from "../activities/index.js";
import type { RoomOperationInput, RoomOperationName } from "../domain/waas/threshold/share-operations.js";
import type { BackupStep, BackupStepResult, RecoverStep, RecoverStepResult } from "../domain/waas/threshold/backup-steps.js";
import { codedFailureOf, failureOptions } from "../domain/failure-codec.js";
import { walletExportWorkflow } from "./wallet-export.js";
import { SEARCH_ATTRIBUTES } from "./search-attributes.js";
import { SHARE_STEP_OPTIONS } from "./share-steps.js";
import { DEFAULT_ACTOR_POLICY, actorOperations, type ActorPolicy } from "./actor.js";

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
 * at a time in arrival order (the actor machinery's queue, ./actor.ts), so two operations on one wallet
 * never interleave, while other wallets are other workflows and run in parallel. The state is in Postgres
 * (the share sets and their epochs), so the input is only the wallet; the actor continues as new between
 * operations when its history grows and ends after a quiet while (the next operation starts it again).
 *
 * A new share set is written pending, promoted (current + previous retired, one transaction), then the
 * retired shares are destroyed: whatever step a crash interrupts, exactly one set is current.
 */
export async function waasWalletWorkflow(input: WaasWalletInput): Promise<void> {
  const policy = { ...DEFAULT_ACTOR_POLICY, ...input.policy };
  // The queue, the idle end and continue-as-new (./actor.ts): registered before the handlers.
  const { serialised, serve } = actorOperations(policy);
  const wallet = { environmentId: input.environmentId, walletId: input.walletId };
  upsertMemo({ environmentId: input.environmentId, walletId: input.walletId, userId: input.userId });
  upsertSearchAttributes([
    { key: SEARCH_ATTRIBUTES.environmentId, value: input.environmentId },
    ...(input.userId ? [{ key: SEARCH_ATTRIBUTES.userId, value: input.userId }] : []),
  ]);

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
          const failure = codedFailureOf(err);
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

  return serve<[WaasWalletInput]>(input);
}

/** Rejected before it enters the history: an Update of another environment, or without its fields. */
function requireFields(wallet: WaasWalletInput, u: unknown, fields: string[]): void {
  const given = typeof u === "object" && u !== null ? (u as Record<string, unknown>) : {};
  // Answered like a wallet that does not exist: another tenant learns nothing.
  if (given.environmentId !== wallet.environmentId) {
    throw ApplicationFailure.create(failureOptions({ kind: "not_found", code: "not_found", message: "wallet not found" }));
  }
  const missing = fields.filter((f) => given[f] === undefined);
  if (missing.length) throw ApplicationFailure.create(failureOptions({ kind: "bad_request", code: "invalid_request", message: `missing ${missing.join(", ")}` }));
}
