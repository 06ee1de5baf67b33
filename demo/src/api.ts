/**
 * The page's only way to the service: the public SDK API, /api/v0/sdk/{environmentId}/..., same origin. The
 * session JWT travels in the Authorization header and nowhere else (never a URL, a cookie or storage), and
 * the call log the page shows holds methods, paths and statuses only.
 */

/** An error answer of the API: its body {error, code, payload?} and status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface LoggedCall {
  method: string;
  path: string;
  status: number;
}

export class SdkApi {
  jwt: string | undefined;

  constructor(
    private readonly environmentId: string,
    private readonly onCall: (call: LoggedCall) => void,
  ) {}

  get base(): string {
    return `/api/v0/sdk/${encodeURIComponent(this.environmentId)}`;
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>("GET", path);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.call<T>("POST", path, body);
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.jwt) headers.authorization = `Bearer ${this.jwt}`;
    const res = await fetch(`${this.base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    this.onCall({ method, path, status: res.status });
    const text = await res.text();
    const json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    if (!res.ok) throw new ApiError(res.status, String(json.code ?? "unknown"), String(json.error ?? `HTTP ${res.status}`));
    return json as T;
  }
}
