import { Configuration, SDKApi } from "@dynamic-labs/sdk-api";

/**
 * The published client against a test server, configured as a client app does: `basePath` at /api/v0 and,
 * for a signed-in user, the session JWT (also as a default header: the client attaches `accessToken` only
 * to operations whose spec declares security).
 */
export function sdkFor(baseUrl: string, jwt?: string): SDKApi {
  return new SDKApi(new Configuration({ basePath: `${baseUrl}/api/v0`, ...(jwt ? { accessToken: jwt, headers: { Authorization: `Bearer ${jwt}` } } : {}) }));
}

/** The status, body and headers of a call the client refused (on a non-2xx it throws the fetch Response). */
export async function refused(p: Promise<unknown>): Promise<{ status: number; body: any; headers: Headers }> {
  try {
    await p;
  } catch (err) {
    const r = (err as { response?: Response }).response ?? (err as Response);
    if (typeof r?.status !== "number" || typeof r.json !== "function") throw err;
    return { status: r.status, body: await r.json().catch(() => undefined), headers: r.headers };
  }
  throw new Error("the call succeeded");
}

/** The HTTP status the client saw: 200 when the call succeeded (on a non-2xx it throws the fetch Response). */
export async function statusOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    if (typeof status === "number") return status;
    throw err;
  }
}
