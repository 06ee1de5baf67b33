import { describe, expect, it } from "vitest";
import { decisiveLine, describeStartFailure, endpointOf, reasonOf, StartFailure, unreachable } from "../../src/infra/start-failure.js";

/** The words `npm start` prints when a part it needs does not come up (the whole start: runtime-start-failure.test.ts). */
describe("start failures", () => {
  it("a server's decisive line: its last failure line, without postgres's log prefix", () => {
    const output = [
      "2026-11-27 04:32:52.950 GMT [21388] LOG:  starting PostgreSQL 18",
      '2026-11-27 04:32:52.961 GMT [21388] FATAL:  could not create lock file "postmaster.pid": Permission denied',
      "2026-11-27 04:32:52.962 GMT [21388] LOG:  database system is shut down",
    ].join("\n");
    expect(decisiveLine(output)).toBe('FATAL: could not create lock file "postmaster.pid": Permission denied');
    expect(decisiveLine("starting\nlistening on 7233\n")).toBe("listening on 7233");
    expect(decisiveLine("panic: listen tcp 127.0.0.1:7233: bind: address already in use\ngoroutine 1 [running]:")).toBe(
      "panic: listen tcp 127.0.0.1:7233: bind: address already in use",
    );
    expect(decisiveLine("\n \n")).toBeUndefined();
  });

  it("an endpoint is shown without the URL's credentials or database", () => {
    expect(endpointOf("postgres://sigil:secret@db.example:6543/sigil", 5432)).toBe("db.example:6543");
    expect(endpointOf("redis://:pw@127.0.0.1", 6379)).toBe("127.0.0.1:6379");
    expect(endpointOf("temporal.example:7233", 7233)).toBe("temporal.example:7233");
  });

  it("a connection error's reason: its message, or for a host of several addresses the first one's", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    expect(reasonOf(refused)).toBe("connect ECONNREFUSED 127.0.0.1:1");
    const aggregate = Object.assign(new AggregateError([refused], ""), { code: "ECONNREFUSED" });
    expect(reasonOf(aggregate)).toBe("connect ECONNREFUSED 127.0.0.1:1");
    expect(reasonOf(Object.assign(new Error(""), { code: "ETIMEDOUT" }))).toBe("ETIMEDOUT");
  });

  it("a StartFailure prints as one paragraph; anything else (a bug) with its stack", () => {
    const failure = unreachable("DATABASE_URL", "postgres://u:secret@127.0.0.1:5999/x", 5432, "Check it.", new Error("connect ECONNREFUSED 127.0.0.1:5999"));
    expect(failure).toBeInstanceOf(StartFailure);
    expect(describeStartFailure(failure)).toBe(
      "sigil: could not start. the server at DATABASE_URL (127.0.0.1:5999) did not answer: connect ECONNREFUSED 127.0.0.1:5999. Check it.",
    );
    const bug = new TypeError("x is undefined");
    expect(describeStartFailure(bug)).toMatch(/^sigil: could not start: x is undefined\nTypeError: x is undefined\n\s+at /);
  });
});
