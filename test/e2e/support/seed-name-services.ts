import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { BootstrapResult } from "../../../src/domain/tenancy/bootstrap.js";
import type { TestApp } from "../../support/app.js";
import { call } from "../../support/http.js";

/**
 * One resource of each kind of the name-services area in a tenant, through the REST API: a name service
 * for EVM (linked with a real key's signature), global wallet settings, an access control with one domain
 * and a custom network. Returns the ids of path variables, keyed by their proto names.
 */
export async function seedNameServicesArea(app: TestApp, t: BootstrapResult): Promise<Record<string, string>> {
  const env = `/environments/${t.environmentId}`;
  const must = async (method: string, path: string, body?: unknown) => {
    const res = await call(app.baseUrl, method, path, { token: t.token, body });
    if (res.status !== 200 && res.status !== 201) throw new Error(`seeding ${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const owner = privateKeyToAccount(generatePrivateKey());
  const { message } = await must("POST", `${env}/nameService/EVM/signingMessage`, { domain: "seed.eth", address: owner.address });
  const signature = await owner.signMessage({ message });
  await must("POST", `${env}/nameService/EVM`, { domain: "seed.eth", address: owner.address, signature, message });
  await must("POST", `${env}/globalWallet/settings`, { walletName: "Seed wallet" });
  await must("POST", `${env}/globalWallet/accessControl`, { mode: "allowList" });
  const domain = await must("POST", `${env}/globalWallet/accessControl/domains`, { domain: "seed.example", type: "allow" });
  const network = await must("POST", `/organizations/${t.organizationId}/customNetworks`, {
    name: "Seed chain",
    chainId: 31337,
    rpcUrls: ["http://127.0.0.1:8545"],
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  });
  return { global_wallet_access_control_domain_id: domain.id, network_id: network.customNetwork.id };
}
