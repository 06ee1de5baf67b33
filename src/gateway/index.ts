import type * as http from "node:http";
import type { DescService, JsonValue, Message } from "@bufbuild/protobuf";
import { createClient, createContextValues, type CallOptions, type Transport } from "@connectrpc/connect";
import type { ConnectNodeAdapterOptions } from "@connectrpc/connect-node";
import { readBody } from "./body.js";
import { GatewayError, toHttpError } from "./errors.js";
import { buildRequestMessage } from "./request.js";
import { JSON_CONTENT_TYPE, renderSuccess, type Rendered } from "./response.js";
import { buildRoutes, matchRoute, type Route } from "./rules.js";
import { fileStreamHeaders, pipeFileStream, type StreamTarget } from "./stream.js";
import { CLIENT_IP_HEADER, restRouteKey } from "../rpc/context.js";
import { requestIdOf } from "../rpc/interceptors/request-log.js";
import { unsafeTextViolations } from "../rpc/text-safety.js";
import { validationError } from "../rpc/validation.js";
import { toConnectError } from "../errors.js";
import { HttpBodySchema } from "../gen/google/api/httpbody_pb.js";

export interface RestGatewayOptions {
  /** Services whose google.api.http annotations become REST routes. */
  services: readonly DescService[];
  /** Normally createRouterTransport(routes, { router: { interceptors } }), so REST runs the RPC chain. */
  transport: Transport;
  /** Largest accepted request body; larger ones get 413 without being read to the end. */
  maxBodyBytes: number;
  /** The caller's address (the server's reading of socket and trusted proxies); default: the socket peer. */
  clientAddress?: (req: GatewayRequest) => string;
  /** Sees every error answered as a 500, whose detail the client never gets. */
  onInternalError?: (err: unknown) => void;
  /** Sees every answer once its status is known (before its body is written): what /metrics counts per route. */
  onAnswered?: (answer: RestAnswerSeen) => void;
}

/** One REST answer: `route` is the matched rule's template, undefined when no rule matched the path. */
export interface RestAnswerSeen {
  /** The caller's x-request-id when well-formed, else one made here: sent back on every answer. */
  requestId: string;
  method: string;
  route: string | undefined;
  status: number;
  /** The error body's code (the spec's snake_case code), for an error answer. */
  errorCode: string | undefined;
  seconds: number;
}

/** Request headers the RPC layer may see; everything else a REST caller sends stays at the edge. */
// origin: the page a WebAuthn ceremony runs on decides its relying party (src/domain/passkeys/relying-party.ts).
// idempotency-key: a retried card payment answers the payment already made (src/domain/ramps/card-payment.ts).
const FORWARDED_HEADERS = ["authorization", "user-agent", "x-request-id", "x-mfa-auth-token", "origin", "idempotency-key"] as const;
/**
 * Response headers a handler may set for the REST answer (the security headers of an HTML page such as
 * the OAuth authorize page); other RPC response headers stay in the RPC layer.
 */
const FORWARDED_RESPONSE_HEADERS = [
  "content-security-policy",
  "x-frame-options",
  "cache-control",
  "referrer-policy",
  "x-content-type-options",
  // A browser step that redirects (the OAuth login and callback): the answer becomes 303 See Other.
  "location",
] as const;
/** The query of a URL without one, shared: the request builder only reads it. */
const NO_QUERY: Readonly<URLSearchParams> = new URLSearchParams();
/** Set by the gateway from the socket (or a trusted proxy's forwarding header); a caller-supplied value is never trusted. */
export { CLIENT_IP_HEADER };

/**
 * Exactly the type of connectNodeAdapter's `fallback`: a node:http or node:http2 (compat API) request
 * listener. connect-node patches the response's write/writeHead types so both servers' responses fit; the
 * plain `http.ServerResponse | http2.Http2ServerResponse` union would not be accepted as a fallback.
 */
export type GatewayHandler = NonNullable<ConnectNodeAdapterOptions["fallback"]>;
/** The gateway's request listener, which also tells the methods a path has. */
export type RestGateway = GatewayHandler & { allowedMethods(path: string): string[] | undefined };
export type GatewayRequest = Parameters<GatewayHandler>[0];
type GatewayResponse = Parameters<GatewayHandler>[1];

type UnaryFn = (req: Message, options: CallOptions) => Promise<Message>;
type ServerStreamFn = (req: Message, options: CallOptions) => AsyncIterable<Message>;

/** What the answer's report learns on the way: the matched template, and an error answer's code. */
interface Seen {
  readonly requestId: string;
  template?: string;
  errorCode?: string;
}

/** A REST answer; `file` is the rest of a server stream, written after the headers (stream.ts). */
type Answer = Rendered & { file?: { route: Route; first: Message | undefined; rest: AsyncIterator<Message> } };

/** The subset of the http and http2 compat responses the gateway uses (their union is not callable as is). */
interface ResponseLike extends StreamTarget {
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  readonly destroyed: boolean;
  writeHead(status: number, headers?: http.OutgoingHttpHeaders): unknown;
  end(data?: string | Uint8Array): unknown;
  once(event: "close", listener: () => void): unknown;
}

/**
 * A Node request handler that transcodes REST calls to the RPCs named by google.api.http annotations and
 * runs them through `transport`. Meant as the `fallback` of connectNodeAdapter: RPC paths never get here.
 * Also usable directly as an http/http2 request listener.
 */
export function createRestGateway(opts: RestGatewayOptions): RestGateway {
  const routes = buildRoutes(opts.services);
  const clients = new Map<DescService, Record<string, UnaryFn>>();
  const clientFor = (service: DescService) => {
    let client = clients.get(service);
    if (!client) {
      client = createClient(service, opts.transport) as unknown as Record<string, UnaryFn>;
      clients.set(service, client);
    }
    return client;
  };

  const handle = (req: GatewayRequest, nodeRes: GatewayResponse) => {
    const res = nodeRes as unknown as ResponseLike;
    // Aborting the RPC when the client goes away frees the handler early.
    const abort = new AbortController();
    res.once("close", () => {
      if (!res.writableEnded) abort.abort();
    });
    const clientAddress = opts.clientAddress?.(req) ?? req.socket?.remoteAddress ?? "";
    const started = performance.now();
    // Made here (or the caller's) rather than by the RPC chain, so that answers the gateway gives by itself
    // (no route, bad body) carry one too; the chain receives it as the call's x-request-id.
    const seen: Seen = { requestId: requestIdOf(firstHeader(req.headers["x-request-id"])) };
    serve(req, routes, clientFor, { maxBodyBytes: opts.maxBodyBytes, clientAddress }, abort.signal, seen)
      .catch((err: unknown) => {
        const e = toHttpError(err);
        seen.errorCode = e.body.code;
        if (e.status === 500 && !abort.signal.aborted) opts.onInternalError?.(err);
        const headers: Record<string, string> = { ...e.headers, "content-type": JSON_CONTENT_TYPE, "x-request-id": seen.requestId };
        // An unread body would otherwise keep an HTTP/1.1 connection busy; HTTP/2 forbids the header.
        if (e.status === 413 && req.httpVersionMajor === 1) headers.connection = "close";
        return { status: e.status, headers, body: JSON.stringify(e.body) } satisfies Rendered;
      })
      .then((rendered) => {
        opts.onAnswered?.({
          requestId: seen.requestId,
          method: (req.method ?? "GET").toUpperCase(),
          route: seen.template,
          status: rendered.status,
          errorCode: seen.errorCode,
          seconds: (performance.now() - started) / 1000,
        });
        return write(res, rendered);
      })
      .catch((err: unknown) => {
        // Writing itself failed (socket gone, or a file stream failed after its first bytes): only closing
        // the connection is left, which tells the client the body is incomplete.
        res.destroy();
        if (!abort.signal.aborted) opts.onInternalError?.(err);
      });
  };
  return Object.assign(handle, { allowedMethods: (path: string) => allowedVerbs(routes, path) });
}

/** The methods a path has (for OPTIONS and CORS preflights); undefined when no route matches it. */
function allowedVerbs(routes: readonly Route[], path: string): string[] | undefined {
  const match = matchRoute(routes, "OPTIONS", path);
  return match.kind === "method_not_allowed" ? match.allow : undefined;
}

async function serve(
  req: GatewayRequest,
  routes: readonly Route[],
  clientFor: (service: DescService) => Record<string, UnaryFn>,
  { maxBodyBytes, clientAddress }: { maxBodyBytes: number; clientAddress: string },
  signal: AbortSignal,
  seen: Seen,
): Promise<Answer> {
  const rawUrl = req.url ?? "/";
  const q = rawUrl.indexOf("?");
  // Split by hand: new URL() would read "//x/y" as a host and resolve dot segments.
  const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
  const query = q < 0 || q === rawUrl.length - 1 ? NO_QUERY : new URLSearchParams(rawUrl.slice(q + 1));
  const verb = (req.method ?? "GET").toUpperCase();

  const match = matchRoute(routes, verb, path);
  // OPTIONS asks which methods a path has (RFC 9110 9.3.7); browsers' preflights are answered before this.
  if (verb === "OPTIONS" && match.kind === "method_not_allowed") {
    return { status: 204, headers: { allow: [...match.allow, "OPTIONS"].join(", ") } };
  }
  if (match.kind === "not_found") throw new GatewayError(404, "not_found", `no route for ${verb} ${path}`);
  if (match.kind === "method_not_allowed") {
    throw new GatewayError(405, "method_not_allowed", `method ${verb} not allowed on ${path}`, undefined, {
      allow: match.allow.join(", "),
    });
  }
  const { route, pathParams } = match;
  seen.template = route.template;
  const body = route.body === "" ? undefined : takesRawBody(route) ? await readRawBody(req, maxBodyBytes) : await readJsonBody(req, maxBodyBytes);
  const input = buildRequestMessage(route, { pathParams, query, body });
  // Unary calls hand this message object to the validation interceptor as it is. A server stream goes
  // through bytes (the in-process transport's fallback), which turns an unpaired surrogate into U+FFFD
  // before that interceptor sees it; so for those the text check runs here, on what the caller wrote.
  if (route.method.methodKind === "server_streaming") {
    const unsafe = unsafeTextViolations(route.method.input, input);
    if (unsafe.length) throw toConnectError(validationError(unsafe));
  }

  let requestId: string | null = null;
  const passedOn: Record<string, string> = {};
  const noteRequestId = (h: Headers) => {
    requestId = h.get("x-request-id") ?? requestId;
  };
  const noteHeaders = (h: Headers) => {
    noteRequestId(h);
    for (const name of FORWARDED_RESPONSE_HEADERS) {
      const value = h.get(name);
      if (value !== null) passedOn[name] = value;
    }
  };
  const headers = forwardedHeaders(req, clientAddress);
  headers.set("x-request-id", seen.requestId);
  // Tells the chain that the gateway writes this call's log line (src/rpc/interceptors/request-log.ts).
  const contextValues = createContextValues();
  contextValues.set(restRouteKey, `${verb} ${route.template}`);
  const callOptions = { headers, contextValues, signal, onHeader: noteHeaders, onTrailer: noteRequestId };
  if (route.method.methodKind === "server_streaming") {
    const call = clientFor(route.service)[route.method.localName] as unknown as ServerStreamFn;
    const rest = call(input, callOptions)[Symbol.asyncIterator]();
    // Errors up to the first message (authentication, permission, rate limit, tenancy, not ready) are
    // answered as JSON like any call's; the headers come from that first message.
    const first = await rest.next();
    const headers = fileStreamHeaders(route.method, first.done ? undefined : first.value) as Record<string, string>;
    if (requestId !== null) headers["x-request-id"] = requestId;
    return { status: 200, headers, file: { route, first: first.done ? undefined : first.value, rest } };
  }
  const output = await (clientFor(route.service)[route.method.localName] as UnaryFn)(input, callOptions);
  const rendered = renderSuccess(route, output);
  Object.assign(rendered.headers, passedOn);
  if (passedOn.location !== undefined) rendered.status = 303;
  if (requestId !== null) rendered.headers["x-request-id"] = requestId;
  return rendered;
}

/**
 * As in gRPC transcoding, a rule whose body is a google.api.HttpBody field takes the body as sent, whatever
 * its type (an HTML form's POST, e.g. an OAuth form_post callback); every other rule takes JSON only.
 */
function takesRawBody(route: Route): boolean {
  const field = route.method.input.fields.find((f) => f.name === route.body);
  return field?.message?.typeName === HttpBodySchema.typeName;
}

/** The HttpBody's JSON form (base64 data), so that it goes through the same request building. */
async function readRawBody(req: GatewayRequest, maxBodyBytes: number): Promise<JsonValue> {
  const data = await readBody(req, maxBodyBytes);
  return { contentType: String(req.headers["content-type"] ?? ""), data: data.toString("base64") };
}

/** Only rules with a body read one; an empty body is an empty message, not an error. */
async function readJsonBody(req: GatewayRequest, maxBodyBytes: number): Promise<JsonValue | undefined> {
  const contentType = req.headers["content-type"];
  if (contentType !== undefined) {
    const media = contentType.split(";")[0].trim().toLowerCase();
    if (media !== "application/json") {
      throw new GatewayError(415, "unsupported_media_type", `content type must be application/json, got ${media}`);
    }
  }
  const text = (await readBody(req, maxBodyBytes)).toString("utf8");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    // V8's message quotes the start of the body; an error never echoes input, so only the position is kept.
    const position = err instanceof Error ? /position (\d+)/.exec(err.message)?.[1] : undefined;
    throw new GatewayError(400, "malformed_json", `request body is not valid JSON${position ? ` (at position ${position})` : ""}`);
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function forwardedHeaders(req: GatewayRequest, clientAddress: string): Headers {
  const headers = new Headers();
  for (const name of FORWARDED_HEADERS) {
    const value = req.headers[name];
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(", "));
  }
  headers.set(CLIENT_IP_HEADER, clientAddress);
  return headers;
}

async function write(res: ResponseLike, rendered: Answer): Promise<void> {
  if (rendered.file) {
    res.writeHead(rendered.status, rendered.headers);
    return pipeFileStream(rendered.file.route.method, rendered.file.first, rendered.file.rest, res);
  }
  if (res.destroyed || res.writableEnded) return;
  if (res.headersSent) {
    res.end();
    return;
  }
  const headers: http.OutgoingHttpHeaders = { ...rendered.headers };
  if (rendered.body !== undefined) headers["content-length"] = Buffer.byteLength(rendered.body);
  res.writeHead(rendered.status, headers);
  res.end(rendered.body);
}
