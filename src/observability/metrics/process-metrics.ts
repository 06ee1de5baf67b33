import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { codeToString } from "@connectrpc/connect/protocol-connect";
import type { Flows } from "../../domain/deps.js";
import { silentObserver, type DomainObserver } from "../../domain/observer.js";
import { ERROR_CODE_HEADER } from "../../errors.js";
import { restRouteKey } from "../../rpc/context.js";
import { createInstruments, type Instruments } from "./instruments.js";
import { countedFlows } from "./flows.js";
import type { RestAnswerSeen } from "../../gateway/index.js";

/**
 * The metrics of one process (api, worker, or both in dev): its registry and the hooks every layer reports
 * through. With SIGIL_METRICS=off the hooks count nothing (the scrape keeps the gauges read at scrape time),
 * which is how the benchmark measures what counting costs.
 */
export interface ProcessMetrics {
  readonly enabled: boolean;
  readonly instruments: Instruments;
  /** The domain's port (src/domain/observer.ts). */
  readonly observer: DomainObserver;
  /** First in the RPC chain: counts every Connect / gRPC / gRPC-Web call by procedure, with its error codes. */
  readonly interceptors: Interceptor[];
  /** The REST gateway's report of each answer. */
  restAnswered(answer: RestAnswerSeen): void;
  /** The durable flows, counting their workflow starts per workflow type. */
  flows(flows: Flows): Flows;
}

export function createProcessMetrics(opts: { enabled: boolean }): ProcessMetrics {
  const m = createInstruments({ processMetrics: opts.enabled });
  if (!opts.enabled) {
    return { enabled: false, instruments: m, observer: silentObserver, interceptors: [], restAnswered: () => {}, flows: (f) => f };
  }
  return {
    enabled: true,
    instruments: m,
    observer: {
      signIn(method, outcome) {
        m.signIns.inc({ method });
        if (outcome !== "success") m.signInFailures.inc({ method, error_code: outcome });
      },
      sessionIssued(credential, secondFactorPending) {
        m.sessionsIssued.inc({ credential, second_factor_pending: String(secondFactorPending) });
      },
      webhookAttempt(outcome) {
        m.webhookAttempts.inc({ outcome });
      },
    },
    interceptors: [rpcInterceptor(m)],
    restAnswered(a) {
      // Paths no rule matches are one series, whatever they were: a scan must not create series.
      const route = a.route ?? "unmatched";
      const method = HTTP_METHODS.has(a.method) ? a.method : "other";
      const status = String(a.status);
      m.httpRequests.inc({ method, route, status });
      m.httpDuration.observe({ method, route }, a.seconds);
      if (a.status >= 400) m.httpErrors.inc({ method, route, status, error_code: a.errorCode ?? "none" });
    },
    flows: (flows) => countedFlows(flows, m),
  };
}

/** Methods counted by name; anything else a caller invents is "other" (no series per invented method). */
const HTTP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * Counts the calls that came in as Connect, gRPC or gRPC-Web; a REST call (the gateway's in-process call,
 * which names its route) is counted by the gateway under its route template instead, so that every request
 * is counted once.
 */
function rpcInterceptor(m: Instruments): Interceptor {
  return (next) => async (req) => {
    if (req.contextValues.get(restRouteKey) !== "") return next(req);
    const procedure = `${req.service.typeName}/${req.method.name}`;
    const end = m.rpcDuration.startTimer({ procedure });
    m.rpcRequests.inc({ procedure });
    try {
      return await next(req);
    } catch (err) {
      const ce = ConnectError.from(err);
      const code = codeToString(ce.code);
      m.rpcErrors.inc({ procedure, code, error_code: ce.metadata.get(ERROR_CODE_HEADER) ?? code });
      throw err;
    } finally {
      end();
    }
  };
}
