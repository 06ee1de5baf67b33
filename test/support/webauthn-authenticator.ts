import { createHash, createPrivateKey, createSign, generateKeyPairSync, randomBytes, type KeyObject } from "node:crypto";

/**
 * A software WebAuthn authenticator for tests (WebAuthn Level 3, §6): P-256 keys from node:crypto,
 * authenticator data (RP id hash, flags, signature counter, attested credential data with the COSE key),
 * attestation objects in CBOR ('none', or 'packed' self attestation), client data JSON as a browser
 * writes it, and ES256 assertion signatures. It plays the browser and the authenticator both: what it
 * answers is what navigator.credentials.create()/get() would hand the page, as base64url JSON.
 * The service side checks it all with the real library.
 */

const b64url = (b: Uint8Array) => Buffer.from(b).toString("base64url");
const sha256 = (b: Uint8Array | string) => createHash("sha256").update(b).digest();

// Authenticator data flags (§6.1).
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

/** A credential the authenticator holds. */
interface HeldCredential {
  id: Buffer;
  privateKey: KeyObject;
  cosePublicKey: Buffer;
  rpId: string;
  userHandle: string;
  signCount: number;
}

export interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}

export interface RequestOptions {
  challenge: string;
  rpId?: string;
}

/** What a browser page sends after navigator.credentials.create() (RegistrationResponseJSON). */
export interface Attestation {
  id: string;
  rawId: string;
  type: "public-key";
  authenticatorAttachment: "platform";
  clientExtensionResults: Record<string, never>;
  response: { clientDataJSON: string; attestationObject: string; transports: string[] };
}

/** What a browser page sends after navigator.credentials.get() (AuthenticationResponseJSON). */
export interface Assertion {
  id: string;
  rawId: string;
  type: "public-key";
  authenticatorAttachment: "platform";
  clientExtensionResults: Record<string, never>;
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle: string };
}

export class SoftwareAuthenticator {
  private readonly credentials = new Map<string, HeldCredential>();

  constructor(private readonly aaguid: Buffer = Buffer.alloc(16)) {}

  /**
   * navigator.credentials.create() on `origin`: a new key pair for the options' RP id and user.
   * `format` picks the attestation; `userVerified: false` leaves UV unset; `rpId` overrides the one
   * hashed into the authenticator data (a phishing page's); `credentialId` attests a credential it already
   * holds again (an authenticator that ignores excludeCredentials).
   */
  create(
    options: CreationOptions,
    origin: string,
    opts: { format?: "none" | "packed"; userVerified?: boolean; rpId?: string; credentialId?: string } = {},
  ): Attestation {
    const rpId = opts.rpId ?? options.rp.id ?? new URL(origin).hostname;
    const cred = (opts.credentialId && this.credentials.get(opts.credentialId)) || newCredential(rpId, options.user.id);
    this.credentials.set(b64url(cred.id), cred);
    const { id, privateKey, cosePublicKey } = cred;

    const credentialLength = Buffer.alloc(2);
    credentialLength.writeUInt16BE(id.length);
    const authData = Buffer.concat([
      this.authDataHead(rpId, (opts.userVerified === false ? UP : UP | UV) | AT, cred.signCount),
      this.aaguid,
      credentialLength,
      id,
      cosePublicKey,
    ]);
    const clientDataJSON = clientData("webauthn.create", options.challenge, origin);
    const attStmt =
      opts.format === "packed"
        ? new Map<string, unknown>([
            ["alg", -7],
            ["sig", sign(privateKey, Buffer.concat([authData, sha256(clientDataJSON)]))],
          ])
        : new Map<string, unknown>();
    const attestationObject = cbor(
      new Map<string, unknown>([
        ["fmt", opts.format ?? "none"],
        ["attStmt", attStmt],
        ["authData", authData],
      ]),
    );
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: "public-key",
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ["internal", "hybrid"] },
    };
  }

  /**
   * navigator.credentials.get() on `origin`: signs the challenge with the credential named (else the
   * only one it holds), raising its counter. `rpId` overrides the RP id hashed into the authenticator
   * data; `userVerified: false` leaves UV unset.
   */
  get(options: RequestOptions, origin: string, opts: { credentialId?: string; rpId?: string; userVerified?: boolean } = {}): Assertion {
    const cred = opts.credentialId ? this.credentials.get(opts.credentialId) : [...this.credentials.values()].at(-1);
    if (!cred) throw new Error("the authenticator holds no such credential");
    cred.signCount += 1;
    const authData = this.authDataHead(opts.rpId ?? options.rpId ?? cred.rpId, opts.userVerified === false ? UP : UP | UV, cred.signCount);
    const clientDataJSON = clientData("webauthn.get", options.challenge, origin);
    const signature = sign(cred.privateKey, Buffer.concat([authData, sha256(clientDataJSON)]));
    return {
      id: b64url(cred.id),
      rawId: b64url(cred.id),
      type: "public-key",
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
      response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authData), signature: b64url(signature), userHandle: cred.userHandle },
    };
  }

  /**
   * Its keys and counters as text (PKCS#8 keys): a script keeps the authenticator in a file; load() of it
   * is also a cloned authenticator (same keys and counters, each then signing on its own).
   */
  save(): string {
    const creds = [...this.credentials.values()].map((c) => ({
      id: b64url(c.id),
      privateKey: c.privateKey.export({ format: "pem", type: "pkcs8" }),
      cosePublicKey: b64url(c.cosePublicKey),
      rpId: c.rpId,
      userHandle: c.userHandle,
      signCount: c.signCount,
    }));
    return JSON.stringify({ aaguid: b64url(this.aaguid), creds });
  }

  static load(text: string): SoftwareAuthenticator {
    const saved = JSON.parse(text) as { aaguid: string; creds: { id: string; privateKey: string; cosePublicKey: string; rpId: string; userHandle: string; signCount: number }[] };
    const a = new SoftwareAuthenticator(Buffer.from(saved.aaguid, "base64url"));
    for (const c of saved.creds)
      a.credentials.set(c.id, { ...c, id: Buffer.from(c.id, "base64url"), privateKey: createPrivateKey(c.privateKey), cosePublicKey: Buffer.from(c.cosePublicKey, "base64url") });
    return a;
  }

  private authDataHead(rpId: string, flags: number, signCount: number): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(signCount);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), counter]);
  }
}

/** A new P-256 key pair with a random 32-byte credential id; the COSE form of its public key (RFC 9053). */
function newCredential(rpId: string, userHandle: string): HeldCredential {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = publicKey.export({ format: "jwk" });
  const cosePublicKey = cbor(
    new Map<number, unknown>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, "base64url")],
      [-3, Buffer.from(jwk.y!, "base64url")],
    ]),
  );
  return { id: randomBytes(32), privateKey, cosePublicKey, rpId, userHandle, signCount: 0 };
}

/** CollectedClientData (§5.8.1), serialized as browsers do. */
function clientData(type: string, challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

/** ES256: ECDSA P-256 over SHA-256, DER-encoded as WebAuthn signatures are. */
function sign(key: KeyObject, data: Buffer): Buffer {
  return createSign("sha256").update(data).sign(key);
}

/**
 * The CBOR (RFC 8949) subset attestation objects and COSE keys use: unsigned and negative integers, byte
 * and text strings, arrays and maps (a Map keeps the key order and integer keys), with definite lengths.
 */
function cbor(value: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
    if (n < 0x10000) {
      const b = Buffer.alloc(3);
      b[0] = (major << 5) | 25;
      b.writeUInt16BE(n, 1);
      return b;
    }
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  if (typeof value === "string") {
    const s = Buffer.from(value, "utf8");
    return Buffer.concat([head(3, s.length), s]);
  }
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  if (value instanceof Map) return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
  throw new Error(`cbor: cannot encode ${typeof value}`);
}
