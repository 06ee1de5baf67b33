import { appendFileSync } from "node:fs";
import type { DescMethod } from "@bufbuild/protobuf";
import type { UndeclaredErrorSettings } from "../config.js";
import { DomainError, kindToHttpStatus, UNDECLARED_ERROR } from "../errors.js";
import type { Logger } from "../log.js";
import { isDeclared } from "./declared-errors.js";

/** One undeclared answer as the log file keeps it (a JSON line): what `npm run errors:declare` reads. */
export interface UndeclaredErrorRecord {
  method: string;
  code: string;
  status: number;
}

/**
 * The error path's check that an RPC answers only what it declares (src/rpc/declared-errors.ts). Returns the
 * error to answer instead, or undefined to answer the error as thrown. Under `enforce` (the test run) an
 * undeclared one becomes 500 undeclared_error naming it, so the test that reached it fails at once; otherwise
 * a warning, once per RPC and code. Either way it is appended to the log file when one is set (once per
 * process), which the test run's teardown reads to fail the run and the declaring script to fill the protos.
 */
export function undeclaredErrorCheck(log: Logger, settings: UndeclaredErrorSettings | undefined): (method: DescMethod, err: DomainError) => DomainError | undefined {
  const noted = new Set<string>();
  return (method, err) => {
    // Only Sigil's own RPCs declare (grpc.health and reflection have no rules); a call without a method
    // (an interceptor driven by hand) has nothing to check, and the error path must not fail on it.
    if (!method?.parent?.typeName.startsWith("sigil.")) return undefined;
    // An internal error is answered as `internal` whatever its code (its detail stays in the logs), which
    // every RPC declares.
    if (err.kind === "internal") return undefined;
    const status = kindToHttpStatus[err.kind];
    if (isDeclared(method, err.code, status)) return undefined;
    const record: UndeclaredErrorRecord = { method: `${method.parent.typeName}.${method.name}`, code: err.code, status };
    const key = `${record.method} ${record.code} ${status}`;
    if (!noted.has(key)) {
      noted.add(key);
      if (settings?.logFile) appendFileSync(settings.logFile, `${JSON.stringify(record)}\n`);
      log.warn("undeclared error", { ...record, declare: "add it to the RPC's `errors` option (npm run errors:declare)" });
    }
    if (!settings?.enforce) return undefined;
    return new DomainError(
      "internal",
      UNDECLARED_ERROR,
      `${record.method} answered ${err.code} (${status}), which its proto does not declare: add {code: "${err.code}", status: ${status}} to its errors option`,
      { ...record },
    );
  };
}
