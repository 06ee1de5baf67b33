import { ApplicationFailure } from "@temporalio/activity";
import { failureOptions } from "../domain/failure-codec.js";
import { DomainError } from "../errors.js";

/**
 * Bad input or state never gets better by retrying: the WaaS activities turn a DomainError into a
 * non-retryable failure (type = code) whose details carry the error's kind, code and payload, which the
 * actor writes into the room and the client turns back into the DomainError, all through one codec
 * (src/domain/failure-codec.ts).
 */
export async function failFast<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    throw ApplicationFailure.create(failureOptions(err));
  }
}
