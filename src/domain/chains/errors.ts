import { DomainError, unprocessable } from "../../errors.js";

/** Seconds a client is told to wait after a node failed: a node that timed out is rarely back sooner. */
export const CHAIN_RETRY_AFTER_SECONDS = 5;

/** 422: the chain family is one Sigil does not read (only EVM and Solana are), or the network id is not one of it. */
export const unsupportedChain = (chain: string, networkId?: number) =>
  unprocessable("unsupported_chain", networkId === undefined ? `chain ${chain} is not supported` : `network ${networkId} is not a ${chain} network Sigil reads`, {
    chain,
    ...(networkId === undefined ? {} : { networkId }),
  });

/** 422: no node is configured for the network (environment settings, custom networks, operator default), or its URL is refused. */
export const notConfigured = (message: string, payload: Record<string, unknown>) => unprocessable("not_configured", message, payload);

/** 503 with Retry-After: the node failed, timed out or answered more than the service reads. Nothing is made up. */
export const chainUnavailable = (reason: string) =>
  new DomainError("unavailable", "chain_unavailable", `the chain's node did not answer usably (${reason}), retry later`, {
    retryAfterSeconds: CHAIN_RETRY_AFTER_SECONDS,
  });
