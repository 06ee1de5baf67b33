import { expect } from "vitest";
import { DomainError } from "../../src/errors.js";

/** The code of the DomainError `fn` throws (failing the test on any other error); undefined when it returns. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return (e as DomainError).code;
  }
  return undefined;
}

/** The DomainError `p` rejects with (failing the test when it resolves or rejects with anything else). */
export async function failure(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}
