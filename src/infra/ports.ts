import { createServer } from "node:net";
import { StartFailure } from "./start-failure.js";

/** Asks the kernel for a free TCP port on `host` (binding port 0), then releases it for the caller. */
export async function findFreePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error("could not read the port the kernel assigned"))));
    });
  });
}

/** True when nothing listens on host:port (we could bind it ourselves). */
export async function isPortFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * Throws a StartFailure when a port we are about to hand to a child server is taken: the child's own
 * failure ("bind: address already in use" somewhere in its log) is much harder to read. `what` names the
 * child ("the embedded Postgres"), `remedy` says which setting moves it.
 */
export async function assertPortFree(port: number, what: string, remedy: string, host = "127.0.0.1"): Promise<void> {
  if (!(await isPortFree(port, host))) {
    throw new StartFailure(`${what} did not start`, `port ${host}:${port} is already in use by another process (another Sigil still running?)`, remedy);
  }
}
