import type { SocialAccount, SocialHub } from "../domain/deps.js";

const REQUEST_TIMEOUT_MS = 5000;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * The hub HTTP API of the decentralized-social network: `GET {base}/v1/onChainIdRegistryEventByFid?fid=N`
 * names the account's custody address (idRegisterEventBody.to, the address the last registration or
 * transfer gave it to), `GET {base}/v1/userDataByFid?fid=N` its profile (user-data messages: username,
 * display name, picture). A 404 means the network knows no such account.
 */
export function createSocialHub(baseUrl: string): SocialHub {
  const get = async (path: string): Promise<unknown | null> => {
    const res = await fetch(`${baseUrl}${path}`, { headers: { accept: "application/json" }, redirect: "error", signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    if (res.status === 404) return void (await res.body?.cancel()), null;
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(`the social hub answered ${res.status} for ${path.split("?")[0]}`);
    }
    return res.json();
  };
  return {
    async account(accountId) {
      const fid = encodeURIComponent(accountId);
      const registration = (await get(`/v1/onChainIdRegistryEventByFid?fid=${fid}`)) as { idRegisterEventBody?: { to?: unknown } } | null;
      const custodyAddress = registration?.idRegisterEventBody?.to;
      if (typeof custodyAddress !== "string" || !ADDRESS.test(custodyAddress)) return null;
      const account: SocialAccount = { custodyAddress };
      const data = (await get(`/v1/userDataByFid?fid=${fid}`)) as { messages?: { data?: { userDataBody?: { type?: string; value?: unknown } } }[] } | null;
      for (const m of data?.messages ?? []) {
        const body = m.data?.userDataBody;
        if (typeof body?.value !== "string" || body.value.length > 2048) continue;
        if (body.type === "USER_DATA_TYPE_USERNAME") account.username = body.value;
        else if (body.type === "USER_DATA_TYPE_DISPLAY") account.displayName = body.value;
        else if (body.type === "USER_DATA_TYPE_PFP") account.pfpUrl = body.value;
      }
      return account;
    },
  };
}
