import { DomainError } from "../errors.js";
import { chainUnavailable } from "../domain/chains/errors.js";

/**
 * What a node client's failure means to the caller: the DomainError our transport raised (it travels in the
 * client libraries' `cause` chain), else the node answered something unusable (a JSON-RPC error, a malformed
 * result): chain_unavailable either way, never an invented value.
 */
export function asChainError(err: unknown): DomainError {
  for (let e: unknown = err, depth = 0; e && depth < 10; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof DomainError) return e;
  }
  const message = (err as { shortMessage?: string; message?: string })?.shortMessage ?? (err as Error)?.message ?? String(err);
  return chainUnavailable(`the node's answer was an error: ${message.slice(0, 200)}`);
}
