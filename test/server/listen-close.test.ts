import http from "node:http";
import http2 from "node:http2";
import { describe, expect, it } from "vitest";
import { createDualServer } from "../../src/server/listen.js";
import { waitFor } from "../support/poll.js";

/** close() drains: requests in flight finish (HTTP/1.1 and HTTP/2), new connections are refused, idle ones end. */

/** Answers each request after `ms`; reached() lists the paths of the requests that reached the handler. */
function slowServer(ms: number) {
  const reached: string[] = [];
  const server = createDualServer((req, res) => {
    reached.push(req.url ?? "");
    setTimeout(() => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(`done ${req.url}`);
    }, ms);
  });
  return Object.assign(server, { reached: () => reached });
}

function get1(port: number, path: string, agent?: http.Agent): Promise<{ status: number; body: string; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path, agent }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode!, body, connection: res.headers.connection }));
      })
      .on("error", reject);
  });
}

describe("createDualServer close()", () => {
  it("lets HTTP/1.1 and HTTP/2 requests in flight finish, refuses new connections, and resolves", async () => {
    // Longer than the 2 s after which the server used to cut every connection.
    const server = slowServer(2_500);
    const port = await server.listen(0, "127.0.0.1");
    const agent = new http.Agent({ keepAlive: true });
    // An idle keep-alive connection must not hold the close up.
    expect((await get1(port, "/warmup", agent)).status).toBe(200);

    const h1 = get1(port, "/h1");
    const session = http2.connect(`http://127.0.0.1:${port}`);
    const h2 = new Promise<string>((resolve, reject) => {
      const stream = session.request({ ":path": "/h2" });
      let body = "";
      stream.on("data", (c) => (body += c));
      stream.on("end", () => resolve(body));
      stream.on("error", reject);
    });
    await waitFor("both requests in the handler", () => server.reached().includes("/h1") && server.reached().includes("/h2"));

    const started = Date.now();
    // The listener closes within the call (no wait needed before the next connection is refused).
    const closed = server.close(5_000);
    await expect(get1(port, "/late")).rejects.toThrow(/ECONNREFUSED/);

    expect(await h1).toMatchObject({ status: 200, body: "done /h1" });
    expect(await h2).toBe("done /h2");
    await closed;
    // Resolved once drained, not at the drain deadline.
    expect(Date.now() - started).toBeLessThan(4_500);
    session.close();
    agent.destroy();
  });

  it("cuts a request that outlives the drain time", async () => {
    const server = slowServer(60_000);
    const port = await server.listen(0, "127.0.0.1");
    const hung = get1(port, "/hung").then(
      () => "answered",
      () => "cut",
    );
    await waitFor("the request in the handler", () => server.reached().includes("/hung"));
    await server.close(300);
    expect(await hung).toBe("cut");
  });
});
