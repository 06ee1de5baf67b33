import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { create, type Message } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createRouterTransport, type ConnectRouter, type Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { DomainError, notFound, toConnectError } from "../../src/errors.js";
import { createRestGateway } from "../../src/gateway/index.js";
import { HttpBodySchema } from "../../src/gen/google/api/httpbody_pb.js";
import { OauthService } from "../../src/gen/sigil/oauth/v0/oauth_service_pb.js";
import { AllowlistsService } from "../../src/gen/sigil/allowlists/v0/allowlists_service_pb.js";
import { ProvidersService } from "../../src/gen/sigil/providers/v0/providers_service_pb.js";
import { TokensService } from "../../src/gen/sigil/tokens/v0/tokens_service_pb.js";
import { WalletsService } from "../../src/gen/sigil/wallets/v0/wallets_service_pb.js";

/** What the in-memory handlers saw, so tests can assert on the transcoded request. */
export interface Seen {
  method: string;
  request: Message;
  headers: Headers;
}

export const CREATED_AT = new Date("2024-05-01T12:00:00Z");

/**
 * Small in-memory implementations of real Sigil services. Magic ids select failure modes so the gateway's
 * error mapping can be exercised end to end.
 */
export function testRoutes(seen: Seen[]) {
  return (router: ConnectRouter) => {
    const note = (method: string, request: Message, headers: Headers) => seen.push({ method, request, headers });
    router.service(TokensService, {
      createToken(req, ctx) {
        note("CreateToken", req, ctx.requestHeader);
        return {
          token: {
            id: "tok-1",
            rawToken: "dyn_secret",
            note: req.note,
            active: true,
            projectEnvironmentId: req.environmentId,
            createdAt: timestampFromDate(CREATED_AT),
          },
        };
      },
      listTokens(req, ctx) {
        note("ListTokens", req, ctx.requestHeader);
        switch (req.environmentId) {
          case "rate-limited":
            throw toConnectError(new DomainError("rate_limited", "rate_limited", "slow down"), { "retry-after": "30" });
          case "missing":
            throw toConnectError(notFound("environment"));
          case "forbidden":
            throw new ConnectError("token lacks tokens.read", Code.PermissionDenied);
          case "boom":
            throw new Error("connection to postgres://admin:hunter2@db failed");
          case "internal-connect":
            throw new ConnectError("pool exhausted: hunter2", Code.Internal);
        }
        return { tokens: [{ id: "tok-1", active: false, note: "" }], count: 1 };
      },
      deleteToken(req, ctx) {
        note("DeleteToken", req, ctx.requestHeader);
        return {};
      },
    });
    router.service(WalletsService, {
      createWallet(req, ctx) {
        note("CreateWallet", req, ctx.requestHeader);
        return { wallet: { id: "w-new", name: req.walletName, chain: req.chain, publicKey: req.publicWalletAddress } };
      },
      getWallet(req, ctx) {
        note("GetWallet", req, ctx.requestHeader);
        return {
          wallet: {
            id: req.walletId,
            name: "",
            chain: "EVM",
            properties: { version: "", isAuthenticatorAttached: false, custodyHdWalletId: "hd-1" },
          },
        };
      },
      listUserWallets(req, ctx) {
        note("ListUserWallets", req, ctx.requestHeader);
        return {
          wallets: [
            { id: "w-1", chain: "EVM", lastSelectedAt: timestampFromDate(CREATED_AT) },
            { id: "w-2", chain: "SOL" },
          ],
        };
      },
      recoverDeletedWallets(req, ctx) {
        note("RecoverDeletedWallets", req, ctx.requestHeader);
        // Struct fields are plain JSON objects in protobuf-es v2; the empty strings are user data.
        return { data: { blank: "", nested: { also: "" } }, message: "" };
      },
    });
    router.service(AllowlistsService, {
      listAllowlists(req, ctx) {
        note("ListAllowlists", req, ctx.requestHeader);
        return {
          allowlists: [
            { id: "a-1", name: "VIPs", outcome: "siteAccess", enabledAt: timestampFromDate(CREATED_AT) },
            { id: "a-2", name: "Blocked", outcome: "block" },
          ],
          count: 2,
        };
      },
    });
    router.service(ProvidersService, {
      disableProvider(req, ctx) {
        note("DisableProvider", req, ctx.requestHeader);
        return { provider: { id: req.providerId, provider: "oidc", clientId: "", createNewAccounts: false } };
      },
      getProvider(req, ctx) {
        note("GetProvider", req, ctx.requestHeader);
        throw toConnectError(
          new DomainError("unprocessable", "provider_misconfigured", "provider is misconfigured", { fields: ["clientId"] }),
        );
      },
    });
    router.service(OauthService, {
      oauthAuthorizeHtml(req, ctx) {
        note("OauthAuthorizeHtml", req, ctx.requestHeader);
        const html = `<!doctype html><p>${req.providerType} -> ${req.redirectUri}</p>`;
        return { page: create(HttpBodySchema, { contentType: "text/html; charset=utf-8", data: new TextEncoder().encode(html) }) };
      },
    });
  };
}

/** Stands in for the request-id interceptor: proves REST calls run the router's interceptor chain. */
export const requestIdInterceptor: Interceptor = (next) => async (req) => {
  const id = req.header.get("x-request-id") ?? "generated-id";
  const res = await next(req);
  if (!res.stream) res.header.set("x-request-id", id);
  return res;
};

export interface GatewayServer {
  url: string;
  port: number;
  seen: Seen[];
  internalErrors: unknown[];
  close(): Promise<void>;
}

/** A real HTTP server: connectNodeAdapter for RPC paths, the REST gateway as its fallback. */
export async function startGatewayServer(maxBodyBytes = 1024): Promise<GatewayServer> {
  const seen: Seen[] = [];
  const internalErrors: unknown[] = [];
  const routes = testRoutes(seen);
  const transport = createRouterTransport(routes, { router: { interceptors: [requestIdInterceptor] } });
  const fallback = createRestGateway({
    services: [TokensService, WalletsService, AllowlistsService, ProvidersService, OauthService],
    transport,
    maxBodyBytes,
    onInternalError: (err) => internalErrors.push(err),
  });
  const server = http.createServer(connectNodeAdapter({ routes, fallback }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    internalErrors,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** Raw HTTP/1.1 request, for what fetch cannot do (chunked uploads without Content-Length, lying lengths). */
export function rawRequest(
  port: number,
  options: { method: string; path: string; headers?: http.OutgoingHttpHeaders; chunks?: readonly Buffer[] },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method: options.method, path: options.path, headers: options.headers }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString("utf8") }));
      res.on("error", reject);
    });
    // The server may answer 413 and close before the whole upload is sent; the answer still arrives.
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "EPIPE" && err.code !== "ECONNRESET") reject(err);
    });
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}
