import { describe, expect, it } from "vitest";
import { ConnectError } from "@connectrpc/connect";
import { DomainError, unavailable } from "../../src/errors.js";
import { toHttpError } from "../../src/gateway/errors.js";
import { asUnavailable } from "../../src/infra/dependency-errors.js";
import { errorInterceptor } from "../../src/rpc/interceptors/errors.js";
import { createLogger } from "../../src/log.js";

/** Shapes the drivers really throw (pg / pg-pool, @temporalio/client over grpc-js, node-redis). */
const errno = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code, severity: "FATAL" });
const grpcError = (code: number) => Object.assign(new Error(`${code} status`), { code, details: "", metadata: {} });
const serviceError = (code: number) => Object.assign(new Error("Failed to start Workflow"), { name: "ServiceError", cause: grpcError(code) });

describe("asUnavailable", () => {
  it.each([
    ["ECONNREFUSED", errno("ECONNREFUSED")],
    ["ECONNRESET", errno("ECONNRESET")],
    ["57P01 admin shutdown", pgError("57P01", "terminating connection due to administrator command")],
    ["57P02 crash shutdown", pgError("57P02", "terminating connection because of crash of another server process")],
    ["57P03 starting up", pgError("57P03", "the database system is starting up")],
    ["connection lost", new Error("Connection terminated unexpectedly")],
    ["pool connect timeout", new Error("timeout exceeded when trying to connect")],
    ["wrapped", Object.assign(new Error("query failed"), { cause: errno("ECONNREFUSED") })],
  ])("classifies %s as database_unavailable", (_, err) => {
    expect(asUnavailable(err)).toMatchObject({ kind: "unavailable", code: "database_unavailable" });
  });

  it.each([
    ["UNAVAILABLE", serviceError(14)],
    ["DEADLINE_EXCEEDED", serviceError(4)],
    ["a bare gRPC error", grpcError(14)],
  ])("classifies Temporal %s as workflow_engine_unavailable", (_, err) => {
    expect(asUnavailable(err)).toMatchObject({ kind: "unavailable", code: "workflow_engine_unavailable" });
  });

  it("classifies a closed Redis client as store_unavailable", () => {
    expect(asUnavailable(Object.assign(new Error("The client is closed"), { name: "ClientClosedError" }))).toMatchObject({ code: "store_unavailable" });
  });

  it.each([
    ["a unique violation", pgError("23505", "duplicate key value violates unique constraint")],
    ["a syntax error", pgError("42601", "syntax error")],
    ["a Temporal NOT_FOUND", serviceError(5)],
    ["a plain bug", new TypeError("x is undefined")],
    ["a domain error", new DomainError("not_found", "not_found", "user not found")],
    ["nothing", undefined],
  ])("leaves %s alone", (_, err) => {
    expect(asUnavailable(err)).toBeUndefined();
  });
});

describe("an unavailable dependency over the transports", () => {
  const intercept = async (thrown: unknown) => {
    const call = errorInterceptor(createLogger("silent"))(async () => {
      throw thrown;
    });
    return call({ contextValues: { get: () => undefined } } as never).then(
      () => undefined,
      (err: unknown) => err as ConnectError,
    );
  };

  it("is UNAVAILABLE with Retry-After for Connect/gRPC, 503 with the code and Retry-After over REST", async () => {
    const err = (await intercept(errno("ECONNREFUSED")))!;
    expect(err).toBeInstanceOf(ConnectError);
    expect(err.code).toBe(14); // Code.Unavailable
    expect(err.metadata.get("retry-after")).toBe("5");
    const http = toHttpError(err);
    expect(http.status).toBe(503);
    expect(http.body).toEqual({ error: "database unavailable, retry later", code: "database_unavailable", payload: { dependency: "database" } });
    expect(http.headers["retry-after"]).toBe("5");
  });

  it("keeps a thrown unavailable(...) as it is", async () => {
    const http = toHttpError((await intercept(unavailable("workflow_engine")))!);
    expect([http.status, http.body.code, http.headers["retry-after"]]).toEqual([503, "workflow_engine_unavailable", "5"]);
  });

  it("still answers other failures as a bare 500", async () => {
    const http = toHttpError((await intercept(pgError("42601", "syntax error at or near SELECT")))!);
    expect([http.status, http.body]).toEqual([500, { error: "internal error", code: "internal" }]);
  });
});
