import { Configuration, type Middleware } from "@dynamic-labs/sdk-api";
import type { BootstrapResult } from "../../src/domain/tenancy/bootstrap.js";
import type { TestApp } from "../support/app.js";
import { call, type HttpResult } from "../support/http.js";

/** One request the client sent and what came back, as seen on the wire. */
export interface Exchange {
  method: string;
  /** Path under the base path, without the query. */
  path: string;
  status: number;
  contentType: string | null;
  text: string;
}

/**
 * What a scenario gets: a tenant of its own (per scenario file), clients of the published package
 * configured as a user would (base path, bearer token) and a plain REST helper for setup steps that are
 * not the operation under test.
 */
export interface CompatContext {
  app: TestApp;
  tenant: BootstrapResult;
  /** An API class of the client acting with the tenant's environment token (or the token given). */
  api<T>(cls: new (configuration: Configuration) => T, token?: string): T;
  /** The same with the owner's member (account) token: organization- and account-level operations. */
  memberApi<T>(cls: new (configuration: Configuration) => T): T;
  /** Plain REST for setup; throws unless 2xx. */
  rest(method: string, path: string, body?: unknown, token?: string): Promise<any>;
  /** Values that scenarios of one file hand to each other (ids created by an earlier scenario). */
  state: Record<string, any>;
}

/** Calls exactly the operation under test through the client (its plain method, so `...FromJSON` runs). */
export type Scenario = (ctx: CompatContext) => Promise<unknown>;

/** Scenarios of one file, keyed `ApiClass.operation`, run in the order written. */
export type Scenarios = Record<string, Scenario>;

export function createContext(app: TestApp, tenant: BootstrapResult, wire: Exchange[]): CompatContext {
  const capture: Middleware = {
    post: async ({ url, init, response }) => {
      const u = new URL(url);
      wire.push({
        method: (init.method ?? "GET").toUpperCase(),
        path: u.pathname.replace(/^\/api\/v0/, ""),
        status: response.status,
        contentType: response.headers.get("content-type"),
        text: await response.clone().text(),
      });
      return undefined;
    },
  };
  const configure = (token: string) =>
    new Configuration({
      basePath: `${app.baseUrl}/api/v0`,
      accessToken: token,
      // The client attaches accessToken only to operations whose spec declares security: as users do,
      // also send it as a default header.
      headers: { Authorization: `Bearer ${token}` },
      middleware: [capture],
    });
  return {
    app,
    tenant,
    api: (cls, token = tenant.token) => new cls(configure(token)),
    memberApi: (cls) => new cls(configure(tenant.memberToken)),
    rest: async (method, path, body, token = tenant.token) => {
      const res: HttpResult = await call(app.baseUrl, method, path, { token, body });
      if (res.status < 200 || res.status >= 300) throw new Error(`setup ${method} ${path}: ${res.status} ${res.text}`);
      return res.body;
    },
    state: {},
  };
}

/** Does a wire path (`/allowlists/4f…`) fill the client's template (`/allowlists/{allowlistId}`)? */
export function fillsTemplate(template: string, path: string): boolean {
  const pattern = template
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&"))
    .join("[^/]+");
  return new RegExp(`^${pattern}$`).test(path);
}

/** A failed call as a readable message: the status and body the server sent. */
export async function describeFailure(err: unknown): Promise<string> {
  // The package's index does not export ResponseError as a value: recognise it by its response.
  // (`instanceof Response` fails across the fetch implementations a test process may hold.)
  const response = (err as { response?: { status: number; text(): Promise<string> } } | null)?.response;
  if (response && typeof response.status === "number" && typeof response.text === "function") {
    const text = await response.text().catch(() => "");
    return `the server answered ${response.status}: ${text.slice(0, 500)}`;
  }
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
