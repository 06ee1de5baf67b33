import { createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";
import { assertPortFree, findFreePort, isPortFree } from "../../src/infra/ports.js";

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

describe("ports", () => {
  it("finds a port that can be bound, and sees it taken while bound", async () => {
    const port = await findFreePort();
    expect(port).toBeGreaterThan(0);
    expect(await isPortFree(port)).toBe(true);
    const server = await listen(port);
    try {
      expect(await isPortFree(port)).toBe(false);
      await expect(assertPortFree(port, "the thing", "Move it.")).rejects.toThrow(`the thing did not start: port 127.0.0.1:${port} is already in use`);
    } finally {
      await new Promise((r) => server.close(r));
    }
    await expect(assertPortFree(port, "the thing", "Move it.")).resolves.toBeUndefined();
  });
});
