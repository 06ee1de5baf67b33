import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from "jose";

/** A signing key of the test identity provider, with its key id. */
export interface IdpKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function idpKey(kid: string, alg = "ES256"): Promise<IdpKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

/**
 * An external identity provider on loopback, as a tenant's own would be: it serves its JWKS at
 * /.well-known/jwks.json (the keys published can be changed at any time: rotation) and signs tokens.
 */
export class TestIdp {
  readonly issuer: string;
  readonly jwksUrl: string;
  published: IdpKey[];
  /** How many times the JWKS was fetched. */
  fetches = 0;

  private constructor(
    private readonly server: Server,
    keys: IdpKey[],
  ) {
    const { port } = server.address() as AddressInfo;
    this.issuer = `http://127.0.0.1:${port}`;
    this.jwksUrl = `${this.issuer}/.well-known/jwks.json`;
    this.published = keys;
  }

  static async start(keys: IdpKey[]): Promise<TestIdp> {
    let idp: TestIdp | undefined;
    const server = createServer((req, res) => {
      if (req.url !== "/.well-known/jwks.json" || !idp) return void res.writeHead(404).end();
      idp.fetches++;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: idp.published.map((k) => k.publicJwk) }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    idp = new TestIdp(server, keys);
    return idp;
  }

  /** A token signed with `key` (default: the first published), for `aud`, with the claims given. */
  async token(claims: JWTPayload & { aud: string }, key: IdpKey = this.published[0], opts: { expiresIn?: string | number; issuer?: string } = {}): Promise<string> {
    const { aud, ...rest } = claims;
    return new SignJWT(rest)
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT" })
      .setIssuer(opts.issuer ?? this.issuer)
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime(opts.expiresIn ?? "5m")
      .sign(key.privateKey);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
