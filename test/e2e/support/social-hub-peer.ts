import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { FarcasterSignInRequest } from "@dynamic-labs/sdk-api";
import type { PrivateKeyAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";

/** A decentralized-social account the peer knows: its custody address and profile. */
export interface PeerAccount {
  custodyAddress: string;
  username?: string;
  displayName?: string;
  pfpUrl?: string;
}

/**
 * The network's hub on loopback, speaking the hub HTTP API the adapter reads (custody address from the id
 * registry event, profile from the user-data messages), with accounts the test registers.
 */
export class SocialHubPeer {
  readonly url: string;
  readonly accounts = new Map<string, PeerAccount>();
  requests = 0;
  /** While true the hub answers 500 (down or overloaded). */
  failing = false;

  private constructor(private readonly server: Server) {
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  static async start(): Promise<SocialHubPeer> {
    let peer: SocialHubPeer | undefined;
    const server = createServer((req, res) => {
      peer!.requests++;
      if (peer!.failing) return void res.writeHead(500).end();
      const u = new URL(req.url ?? "/", "http://hub");
      const account = peer!.accounts.get(u.searchParams.get("fid") ?? "");
      const json = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (!account) return json(404, { errCode: "not_found", details: "no such fid" });
      if (u.pathname === "/v1/onChainIdRegistryEventByFid")
        return json(200, { type: "EVENT_TYPE_ID_REGISTER", fid: Number(u.searchParams.get("fid")), idRegisterEventBody: { to: account.custodyAddress, eventType: "ID_REGISTER_EVENT_TYPE_REGISTER" } });
      if (u.pathname === "/v1/userDataByFid") {
        const data = [
          ["USER_DATA_TYPE_USERNAME", account.username],
          ["USER_DATA_TYPE_DISPLAY", account.displayName],
          ["USER_DATA_TYPE_PFP", account.pfpUrl],
        ].filter(([, v]) => v);
        return json(200, { messages: data.map(([type, value]) => ({ data: { type: "MESSAGE_TYPE_USER_DATA_ADD", userDataBody: { type, value } } })) });
      }
      json(404, { errCode: "not_found" });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    peer = new SocialHubPeer(server);
    return peer;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export const SOCIAL_DOMAIN = "app.example.com";

/** The sign-in request a client makes: an EIP-4361 message naming the account, signed by `signer`. */
export async function socialProof(signer: PrivateKeyAccount, fid: string, nonce: string, o: { domain?: string; resources?: string[] } = {}): Promise<FarcasterSignInRequest> {
  const domain = o.domain ?? SOCIAL_DOMAIN;
  const message = createSiweMessage({
    address: signer.address,
    chainId: 10,
    domain,
    uri: `https://${domain}/login`,
    version: "1",
    nonce,
    issuedAt: new Date(),
    statement: "Sign in with your social account",
    resources: o.resources ?? [`farcaster://fid/${fid}`],
  });
  return { address: signer.address, domain, nonce, message, signature: await signer.signMessage({ message }) };
}
