import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, WorkflowUpdateFailedError } from "@temporalio/client";
import { describe, expect, it } from "vitest";
import { DEFAULT_FAILURE_KIND, codedFailure, codedFailureOf, failureOptions } from "../../src/domain/failure-codec.js";
import { DomainError } from "../../src/errors.js";
import { errorOfRoom } from "../../src/domain/waas/threshold/rooms.js";
import { domainErrorOfUpdate } from "../../src/temporal/waas-wallet.js";

// The one codec of a DomainError crossing Temporal (activity -> workflow -> Update caller, and into a room):
// what the activity encodes, the workflow, the client and the room all read back the same way.

/** What the activity side throws for a DomainError (src/activities/waas-shares.ts failFast). */
const encoded = (e: DomainError) => ApplicationFailure.create(failureOptions(e));
/** As the client receives it: the activity's failure, inside the Update's failure. */
const throughUpdate = (cause: Error) =>
  new WorkflowUpdateFailedError("update failed", new ActivityFailure("activity failed", "backupWaasShares", "1", "NON_RETRYABLE_FAILURE", "worker", cause));

describe("the failure codec", () => {
  it("round-trips kind, code, message and payload through an activity, a child workflow and an Update", () => {
    const err = new DomainError("conflict", "wallet_exists", "the wallet exists", { walletId: "w" });
    const inChild = new ChildWorkflowFailure("default", { workflowId: "c", runId: "r" }, "walletExportWorkflow", "NON_RETRYABLE_FAILURE", new ActivityFailure("x", "a", "1", "NON_RETRYABLE_FAILURE", "worker", encoded(err)));
    for (const wrapped of [encoded(err), new ActivityFailure("x", "a", "1", "NON_RETRYABLE_FAILURE", "worker", encoded(err)), inChild, throughUpdate(encoded(err))]) {
      expect(codedFailureOf(wrapped)).toEqual({ kind: "conflict", code: "wallet_exists", message: "the wallet exists", payload: { walletId: "w" } });
    }
    const back = domainErrorOfUpdate(throughUpdate(encoded(err)))!;
    expect(back).toBeInstanceOf(DomainError);
    expect([back.kind, back.code, back.message, back.payload]).toEqual(["conflict", "wallet_exists", "the wallet exists", { walletId: "w" }]);
    // Bad input never gets better by retrying; the type is the code (what an operator reads in the UI).
    expect(encoded(err).nonRetryable).toBe(true);
    expect(encoded(err).type).toBe("wallet_exists");
  });

  it("has one default kind: a failure that names none reads the same in the workflow, the client and the room", () => {
    const kindless = ApplicationFailure.create({ message: "refused", type: "some_code", nonRetryable: true, details: [{ code: "some_code" }] });
    const inWorkflow = codedFailureOf(kindless)!;
    expect(inWorkflow.kind).toBe(DEFAULT_FAILURE_KIND);
    expect(domainErrorOfUpdate(throughUpdate(kindless))!.kind).toBe(DEFAULT_FAILURE_KIND);
    // The room stores what the workflow decoded; read back, it is the same error.
    expect(errorOfRoom({ code: "some_code", message: "refused" } as never).kind).toBe(DEFAULT_FAILURE_KIND);
  });

  it("tells no internal detail of a failure that carries no domain error (an activity's bug after its retries)", () => {
    const bug = ApplicationFailure.create({ message: 'relation "waas_rooms" does not exist', type: "error", nonRetryable: false });
    const f = codedFailureOf(throughUpdate(bug))!;
    expect(f).toEqual({ kind: "internal", code: "internal", message: "the operation failed" });
    expect(domainErrorOfUpdate(throughUpdate(bug))!.kind).toBe("internal");
  });

  it("reads nothing from what is not a Temporal failure", () => {
    expect(codedFailureOf(new Error("x"))).toBeNull();
    expect(domainErrorOfUpdate(new Error("x"))).toBeNull();
  });

  it("normalises a stored failure (a room's error) with the same default", () => {
    expect(codedFailure({ code: "c", message: "m" })).toEqual({ kind: DEFAULT_FAILURE_KIND, code: "c", message: "m" });
    expect(codedFailure({ kind: "not_found", code: "not_found", message: "room not found", payload: { a: 1 } })).toEqual({
      kind: "not_found",
      code: "not_found",
      message: "room not found",
      payload: { a: 1 },
    });
  });
});
