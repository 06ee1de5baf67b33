import { createRouterTransport, type HandlerContext } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { SdkSessionsService } from "../../src/gen/sigil/sessions/v0/sessions_service_pb.js";
import { createInProcessTransport } from "../../src/server/in-process-transport.js";

// The handler context of an in-process call: the caller's signal reaches the handler (the REST gateway aborts
// it when the client goes away), and a deadline still ends the call's signal.
function transportSeeing(seen: HandlerContext[], answer: () => Promise<void>) {
  const routes = (router: Parameters<Parameters<typeof createRouterTransport>[0]>[0]) =>
    router.service(SdkSessionsService, {
      sessionCheck: async (_req, ctx) => {
        seen.push(ctx);
        await answer();
        return {};
      },
    });
  return createInProcessTransport(routes, [], createRouterTransport(routes));
}

const method = SdkSessionsService.method.sessionCheck;

describe("in-process calls", () => {
  it("hand the handler the caller's signal: aborted when the caller aborts", async () => {
    const seen: HandlerContext[] = [];
    let release!: () => void;
    const transport = transportSeeing(seen, () => new Promise<void>((r) => (release = r)));
    const caller = new AbortController();
    const call = transport.unary(method, caller.signal, undefined, { "x-test": "1" }, { environmentId: "e" });
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]!.signal.aborted).toBe(false);
    expect(seen[0]!.requestHeader.get("x-test")).toBe("1");
    caller.abort();
    expect(seen[0]!.signal.aborted).toBe(true);
    release();
    await call;
  });

  it("end the handler's signal at the call's deadline", async () => {
    const seen: HandlerContext[] = [];
    let release!: () => void;
    const transport = transportSeeing(seen, () => new Promise<void>((r) => (release = r)));
    const call = transport.unary(method, new AbortController().signal, 50, undefined, { environmentId: "e" });
    await expect.poll(() => seen.length).toBe(1);
    await expect.poll(() => seen[0]!.signal.aborted, { timeout: 2_000 }).toBe(true);
    expect(seen[0]!.timeoutMs()).toBeLessThanOrEqual(0);
    release();
    await call.catch(() => undefined);
  });
});
