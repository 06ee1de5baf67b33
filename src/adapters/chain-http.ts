import type { ChainSettings } from "../config-chains.js";
import type { WebhookSettings } from "../config.js";
import { chainUnavailable, notConfigured } from "../domain/chains/errors.js";
import type { ChainEndpoint } from "../domain/chains/nodes.js";
import { destinationRules, type DestinationRules } from "../net/destination-policy.js";
import { DESTINATION_REFUSED, pinnedClient, type PinnedClient } from "../net/pinned-fetch.js";

/** Connections kept per node URL: enough for a burst of parallel reads without opening one per call. */
const CONNECTIONS_PER_NODE = 8;
/** Node clients kept open at once; the oldest is closed past this (each tenant may name its own node). */
const MAX_CLIENTS = 256;

/** One JSON-RPC exchange with a node: the request body in, the response text out, or a DomainError. */
export type ChainPost = (body: string, signal?: AbortSignal | null) => Promise<string>;

/**
 * The rules a node URL is reached under. An operator's default is trusted as written (its host allowed,
 * loopback included). A tenant's URL obeys the service's destination policy as webhooks do: public
 * addresses only and https for a live environment; a sandbox may also reach loopback when
 * SIGIL_WEBHOOK_SANDBOX_LOOPBACK allows it (a node on the developer's machine), never the service's own ports.
 */
function rulesFor(endpoint: ChainEndpoint, webhooks: WebhookSettings): DestinationRules {
  if (endpoint.trusted) return { environmentName: "sandbox", sandboxLoopback: true, allowHosts: [new URL(endpoint.url).hostname], protectedPorts: [] };
  return destinationRules(webhooks, endpoint.environmentName);
}

/**
 * POSTs to chain nodes over pinned connections (src/net/pinned-fetch.ts): every call has the deadline
 * SIGIL_CHAIN_TIMEOUT_MS and reads at most SIGIL_CHAIN_MAX_RESPONSE_BYTES; a node that refuses, fails,
 * times out, answers non-2xx or too much is chain_unavailable (503), a URL the policy refuses not_configured.
 */
export function createChainHttp(settings: ChainSettings, webhooks: WebhookSettings): (endpoint: ChainEndpoint) => ChainPost {
  const clients = new Map<string, PinnedClient>();
  const clientFor = (endpoint: ChainEndpoint): PinnedClient => {
    const key = `${endpoint.trusted ? "operator" : endpoint.environmentName}|${endpoint.url}`;
    let client = clients.get(key);
    if (!client) {
      if (clients.size >= MAX_CLIENTS) {
        const [oldestKey, oldest] = clients.entries().next().value!;
        clients.delete(oldestKey);
        void oldest.close();
      }
      client = pinnedClient(endpoint.url, rulesFor(endpoint, webhooks), CONNECTIONS_PER_NODE);
      clients.set(key, client);
    }
    return client;
  };
  return (endpoint) => {
    const url = new URL(endpoint.url);
    if (!endpoint.trusted && endpoint.environmentName === "live" && url.protocol !== "https:")
      throw notConfigured("a live environment's node URL must use https", { host: url.host });
    return async (body, signal) => {
      const deadline = AbortSignal.timeout(settings.timeoutMs);
      let res;
      try {
        res = await clientFor(endpoint).post({
          headers: { "content-type": "application/json", accept: "application/json" },
          body,
          signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
          maxBytes: settings.maxResponseBytes + 1,
        });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === DESTINATION_REFUSED) throw notConfigured(`the node URL is refused: ${(err as Error).message}`, { host: url.host });
        throw chainUnavailable(deadline.aborted ? `no answer within ${settings.timeoutMs} ms` : "the connection failed");
      }
      if (res.status < 200 || res.status >= 300) throw chainUnavailable(`the node answered HTTP ${res.status}`);
      if (res.excerpt === null) throw chainUnavailable("the answer could not be read");
      if (Buffer.byteLength(res.excerpt) > settings.maxResponseBytes) throw chainUnavailable(`the answer is larger than ${settings.maxResponseBytes} bytes`);
      return res.excerpt;
    };
  };
}
