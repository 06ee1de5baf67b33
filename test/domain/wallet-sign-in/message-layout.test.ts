import { describe, expect, it } from "vitest";
import { createSiweMessage } from "viem/siwe";
import { DomainError } from "../../../src/errors.js";
import { parseEvmMessage } from "../../../src/domain/wallet-sign-in/evm.js";
import { parseSolanaMessage } from "../../../src/domain/wallet-sign-in/solana.js";

const SOL = "7Xq3mJ9oGkyQ5Ykq4wXbvN8D2mZK6ePj3oQYgk5Yh1Ft";
const EVM = "0x1111111111111111111111111111111111111111";
const NONCE = "0123456789abcdef0123456789abcdef";
const ISSUED = "2026-11-26T10:00:00.000Z";

/** What wallet-standard's createSignInMessageText writes (no blank line between address and fields without a statement). */
function siws(o: { statement?: string; fields?: string[] } = {}): string {
  const fields = o.fields ?? ["URI: https://app.example.com/login", "Version: 1", "Chain ID: mainnet", `Nonce: ${NONCE}`, `Issued At: ${ISSUED}`];
  return `app.example.com wants you to sign in with your Solana account:\n${SOL}${o.statement !== undefined ? `\n\n${o.statement}` : ""}\n\n${fields.join("\n")}`;
}

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    if (err instanceof DomainError) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error("the message was accepted");
};

describe("the Solana sign-in message", () => {
  it("reads the layout wallets write, with and without a statement, fields optional but the nonce", () => {
    expect(parseSolanaMessage(siws({ statement: "Sign in to the example app" }))).toMatchObject({
      domain: "app.example.com",
      address: SOL,
      uri: "https://app.example.com/login",
      chainId: "mainnet",
      nonce: NONCE,
      issuedAt: new Date(ISSUED),
    });
    expect(parseSolanaMessage(siws()).nonce).toBe(NONCE);
    const minimal = parseSolanaMessage(siws({ fields: [`Nonce: ${NONCE}`, "Resources:", "- https://app.example.com/terms", "- ipfs://bafy"] }));
    expect(minimal).toMatchObject({ nonce: NONCE, uri: undefined });
    // A trailing newline carries nothing.
    expect(parseSolanaMessage(`${siws()}\n`).nonce).toBe(NONCE);
  });

  it("takes a statement that looks like fields as the statement, never as the fields", () => {
    const m = parseSolanaMessage(siws({ statement: "Nonce: aaaaaaaaaaaaaaaa URI: https://evil.example" }));
    expect(m).toMatchObject({ nonce: NONCE, uri: "https://app.example.com/login" });
    const only = siws({ statement: `Nonce: ${NONCE}`, fields: ["URI: https://app.example.com/login", "Version: 1"] });
    expect(refusal(() => parseSolanaMessage(only))).toMatchObject({ code: "invalid_message", message: expect.stringMatching(/Nonce/) });
    // A field line in the statement's place (a blank line after it) is the statement, as CAIP-122 reads it.
    const asStatement = parseSolanaMessage(siws({ fields: ["URI: https://evil.example", "", `Nonce: ${NONCE}`] }));
    expect(asStatement).toMatchObject({ uri: undefined, nonce: NONCE });
  });

  it("refuses fields out of order, repeated, unknown, empty or separated, and extra lines", () => {
    const cases: Record<string, string> = {
      "out of order": siws({ fields: [`Nonce: ${NONCE}`, "URI: https://app.example.com/login"] }),
      repeated: siws({ fields: [`Nonce: ${NONCE}`, `Nonce: ${NONCE}`] }),
      unknown: siws({ fields: [`Nonce: ${NONCE}`, "Redirect: https://evil.example"] }),
      empty: siws({ fields: ["URI: ", `Nonce: ${NONCE}`] }),
      "blank line in the fields": siws({ fields: ["URI: https://app.example.com/login", "Version: 1", "", `Nonce: ${NONCE}`] }),
      "a line that is no field": siws({ statement: "Sign in", fields: [`Nonce: ${NONCE}`, "and also this"] }),
      "a second statement": siws({ statement: "Sign in", fields: ["Also this", "", `Nonce: ${NONCE}`] }),
      "a resource that is no list item": siws({ fields: [`Nonce: ${NONCE}`, "Resources:", "https://x.example"] }),
      "CRLF line ends": siws().replace(/\n/g, "\r\n"),
      "no blank after the address": `app.example.com wants you to sign in with your Solana account:\n${SOL}\nNonce: ${NONCE}`,
      "another chain's header": siws().replace("Solana account", "Ethereum account"),
      "a bad address": siws().replace(SOL, "0OIl"),
      "Version 2": siws({ fields: ["Version: 2", `Nonce: ${NONCE}`] }),
    };
    for (const [what, text] of Object.entries(cases)) expect(refusal(() => parseSolanaMessage(text)).code, what).toBe("invalid_message");
  });
});

describe("the EIP-4361 message", () => {
  const base = { address: EVM, chainId: 1, domain: "app.example.com", uri: "https://app.example.com/login", version: "1", nonce: NONCE, issuedAt: new Date(ISSUED) } as const;

  it("reads what viem's createSiweMessage writes, with and without a statement and the optional fields", () => {
    expect(parseEvmMessage(createSiweMessage({ ...base, statement: "Sign in" }))).toMatchObject({ address: EVM, chainId: "1", nonce: NONCE, domain: "app.example.com" });
    const full = createSiweMessage({
      ...base,
      chainId: 8453,
      expirationTime: new Date("2026-11-27T10:00:00.000Z"),
      notBefore: new Date(ISSUED),
      requestId: "req-1",
      resources: ["https://app.example.com/terms"],
      scheme: "https",
    });
    expect(parseEvmMessage(full)).toMatchObject({ chainId: "8453", scheme: "https", expirationTime: new Date("2026-11-27T10:00:00.000Z") });
  });

  it("refuses lines viem's unanchored reading would skip, and fields out of place", () => {
    const good = createSiweMessage({ ...base, statement: "Sign in" });
    const cases: Record<string, string> = {
      "a junk line before the fields": good.replace("URI:", "Junk: x\nURI:"),
      "a junk line after the fields": `${good}\nJunk: x`,
      "fields inside the statement's block": good.replace("Sign in", `Sign in\nNonce: ${NONCE}`),
      "a missing Issued At": good.replace(/\nIssued At: .*/, ""),
      "a Chain ID that is not a number": good.replace("Chain ID: 1", "Chain ID: mainnet"),
      "a short nonce": good.replace(NONCE, "abc"),
    };
    for (const [what, text] of Object.entries(cases)) expect(refusal(() => parseEvmMessage(text)).code, what).toBe("invalid_message");
  });
});
