import { Pool } from "undici";

/** One answer: its status and body text. */
export interface Answer {
  status: number;
  text: string;
}

/**
 * The benches' HTTP client: keep-alive connections of undici's Pool, `connections` of them at most. Global
 * fetch spent about as much CPU per call as a server does on the 2-core reference box, and a load generator's
 * CPU is taken from the servers it measures. A body is sent as JSON.
 */
export function keepAliveClient(base: string, connections: number) {
  const pool = new Pool(base, { connections });
  return {
    async call(method: "GET" | "POST", path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
      const r = await pool.request({ path, method, headers: body === undefined ? headers : { ...headers, "content-type": "application/json" }, body });
      return { status: r.statusCode, text: await r.body.text() };
    },
    close: () => pool.close(),
  };
}
