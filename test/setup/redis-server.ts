import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "redis";
import { startManagedProcess } from "../../src/infra/managed-process.js";
import { findFreePort } from "../../src/infra/ports.js";

/**
 * A throwaway redis-server for a test run: no persistence, loopback only, killed at teardown (and by the
 * managed-process exit hook if vitest dies first).
 */
export async function startTestRedis(redisServer: string, log: (line: string) => void): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await findFreePort();
  const server = startManagedProcess(
    redisServer,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning"],
    { log },
  );
  const url = `redis://127.0.0.1:${port}`;
  let exited = false;
  void server.exited.then(() => (exited = true));

  const deadline = Date.now() + 15_000;
  while (!exited && Date.now() < deadline) {
    const client = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 1_000 } });
    client.on("error", () => undefined);
    try {
      await client.connect();
      if ((await client.ping()) === "PONG") return { url, stop: () => server.stop() };
    } catch {
      // not listening yet
    } finally {
      if (client.isOpen) client.destroy();
    }
    await sleep(100);
  }
  await server.stop(1_000);
  throw new Error(`redis-server on port ${port} did not start:\n${server.recentOutput() || "(no output)"}`);
}
