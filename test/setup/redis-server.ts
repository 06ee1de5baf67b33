import { createClient } from "redis";
import { startManagedProcess } from "../../src/infra/managed-process.js";
import { findFreePort } from "../../src/infra/ports.js";
import { waitFor } from "../support/poll.js";

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

  const answers = async () => {
    if (exited) return "exited";
    const client = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 1_000 } });
    client.on("error", () => undefined);
    try {
      await client.connect();
      return await client.ping();
    } finally {
      if (client.isOpen) client.destroy();
    }
  };
  // Connections are refused until it listens: retried. Anything but PONG (it exited, or the wait timed out) fails.
  const answer = await waitFor(`redis-server on port ${port} to answer`, answers, { timeoutMs: 15_000, retryErrors: true }).catch((err: Error) => err.message);
  if (answer === "PONG") return { url, stop: () => server.stop() };
  await server.stop(1_000);
  throw new Error(`redis-server on port ${port} did not start (${answer}):\n${server.recentOutput() || "(no output)"}`);
}
