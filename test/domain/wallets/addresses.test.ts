import { randomBytes } from "node:crypto";
import { base32nopad, base58, base64, base64url, bech32, bech32m, createBase58check } from "@scure/base";
import { sha256, sha512_256 } from "@noble/hashes/sha2.js";
import crc16xmodem from "crc/crc16xmodem";
import { describe, expect, it } from "vitest";
import { normalizeWalletAddress } from "../../../src/domain/wallets/addresses.js";
import { DomainError } from "../../../src/errors.js";

const base58check = createBase58check(sha256);

function rejection(chain: string, address: string): DomainError {
  try {
    normalizeWalletAddress(chain, address);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error(`expected ${chain} ${JSON.stringify(address)} to be rejected`);
}

function expectInvalid(chain: string, address: string) {
  const err = rejection(chain, address);
  expect(err.kind).toBe("bad_request");
  expect(err.code).toBe("invalid_wallet_address");
}

/** An Algorand address built from the spec: base32(key || last 4 bytes of SHA-512/256(key)). */
function algorandAddress(key: Uint8Array): string {
  const checksum = sha512_256(key).subarray(-4);
  return base32nopad.encode(Uint8Array.from([...key, ...checksum]));
}

/** A TON user-friendly address: tag || workchain || hash || CRC16-XMODEM of the 34 bytes before it. */
function tonFriendly(tag: number, workchain: number, hash: Uint8Array, urlSafe = true): string {
  const body = Buffer.from([tag, workchain & 0xff, ...hash]);
  const crc = crc16xmodem(body);
  const bytes = Uint8Array.from([...body, crc >> 8, crc & 0xff]);
  return urlSafe ? base64url.encode(bytes) : base64.encode(bytes);
}

const SATOSHI_GENESIS = "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa";
const STARK_PRIME = 2n ** 251n + 17n * 2n ** 192n + 1n;
// TON Foundation's wallet (ton.org docs), bounceable and non-bounceable, and its raw form.
const TON_FOUNDATION_BOUNCEABLE = "EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N";
const TON_FOUNDATION_RAW = "0:83dfd552e63729b472fcbcc8c45ebcc6691702558b68ec7527e1ba403a0f31a8";

describe("normalizeWalletAddress: valid addresses and their canonical form", () => {
  it.each([
    // EIP-55 examples: checksummed stays as is; all-lower and all-upper carry no checksum and get one.
    ["ETH", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
    ["ETH", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"],
    ["EVM", "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB"],
    ["EVM", "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb", "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb"],
    ["ETH", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
    ["ETH", "0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
    // Flow mainnet FlowToken and FungibleToken contract accounts.
    ["FLOW", "0x1654653399040a61", "0x1654653399040a61"],
    ["FLOW", "0xF233DCEE88FE0ABE", "0xf233dcee88fe0abe"],
    // Solana system program, SPL token program, wrapped SOL mint; Eclipse shares the format.
    ["SOL", "11111111111111111111111111111111", "11111111111111111111111111111111"],
    ["SOL", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"],
    ["ECLIPSE", "So11111111111111111111111111111111111111112", "So11111111111111111111111111111111111111112"],
    // Algorand zero address and the fee sink; lower case is the same address.
    ["ALGO", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAY5HFKQ", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAY5HFKQ"],
    ["ALGO", "Y76M3MSY6DKBRHBL7C3NNDXGS5IIMQVQVUAB6MP4XEMMGVF2QWNPL226CA", "Y76M3MSY6DKBRHBL7C3NNDXGS5IIMQVQVUAB6MP4XEMMGVF2QWNPL226CA"],
    ["ALGO", "y76m3msy6dkbrhbl7c3nndxgs5iimqvqvuab6mp4xemmgvf2qwnpl226ca", "Y76M3MSY6DKBRHBL7C3NNDXGS5IIMQVQVUAB6MP4XEMMGVF2QWNPL226CA"],
    // Starknet ETH and STRK token contracts; short forms are padded and lower-cased.
    ["STARK", "0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7", "0x049d36570d4e46f48e99674bd3fcc84644ddd6b96f7c741b1562b82f9e004dc7"],
    ["STARK", "0x4718F5A0FC34CC1AF16A1CDEE98FFB20C31F5CD61D6AB07201858F4287C938D", "0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d"],
    ["STARK", "0x1", "0x" + "0".repeat(63) + "1"],
    ["STARK", "0x" + (STARK_PRIME - 1n).toString(16), "0x0" + (STARK_PRIME - 1n).toString(16)],
    // Cosmos SDK: bytes 0x01..0x14, and the Hub's distribution module account; upper case is the same address.
    ["COSMOS", "cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu", "cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu"],
    ["COSMOS", "COSMOS1JV65S3GRQF6V6JL3DP4T6C9T9RK99CD88LYUFL", "cosmos1jv65s3grqf6v6jl3dp4t6c9t9rk99cd88lyufl"],
    // Bitcoin base58: genesis P2PKH, P2SH, testnet P2PKH and P2SH.
    ["BTC", SATOSHI_GENESIS, SATOSHI_GENESIS],
    ["BTC", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy"],
    ["BTC", "mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn", "mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn"],
    ["BTC", "2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc", "2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc"],
    // BIP-173 (segwit v0, bech32) valid addresses; stored lower-case.
    ["BTC", "BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"],
    ["BTC", "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7", "tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7"],
    ["BTC", "tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy", "tb1qqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesrxh6hy"],
    // BIP-350 (segwit v1+, bech32m) valid addresses.
    ["BTC", "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y", "bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y"],
    ["BTC", "BC1SW50QGDZ25J", "bc1sw50qgdz25j"],
    ["BTC", "bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs", "bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs"],
    ["BTC", "tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c", "tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c"],
    ["BTC", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0"],
    // Sui framework package; Aptos core account in short and long form.
    ["SUI", "0x0000000000000000000000000000000000000000000000000000000000000002", "0x0000000000000000000000000000000000000000000000000000000000000002"],
    ["SUI", "0x" + "AB".repeat(32), "0x" + "ab".repeat(32)],
    ["APTOS", "0x1", "0x" + "0".repeat(63) + "1"],
    ["APTOS", "0x" + "0".repeat(63) + "1", "0x" + "0".repeat(63) + "1"],
    ["APTOS", "0xA550C18", "0x" + "0".repeat(57) + "a550c18"],
    // TRON: the zero address, and the USDT contract.
    ["TRON", "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb", "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb"],
    ["TRON", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"],
    // TON: friendly forms (bounceable, non-bounceable) and the raw form all store as raw.
    ["TON", TON_FOUNDATION_BOUNCEABLE, TON_FOUNDATION_RAW],
    ["TON", "UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI", TON_FOUNDATION_RAW],
    ["TON", TON_FOUNDATION_RAW.toUpperCase().replace(/^0X/, "0"), TON_FOUNDATION_RAW],
    // The masterchain elector contract.
    ["TON", "Ef8zMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzMzM0vF", "-1:" + "3".repeat(64)],
    ["TON", "-1:" + "3".repeat(64), "-1:" + "3".repeat(64)],
    // Spark: a wallet's mainnet address (pubkey 02eda867...), and generator-point vectors under other hrps.
    ["SPARK", "sp1pgss9mdgv7f6cf3lq5a3feh2jtnuypgf2x438tdq79q9jxtnflj9hhq4htem47", "sp1pgss9mdgv7f6cf3lq5a3feh2jtnuypgf2x438tdq79q9jxtnflj9hhq4htem47"],
    ["SPARK", "spark1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc489gg2", "spark1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc489gg2"],
    ["SPARK", "SPRT1PGSSY7D7VEL0NH9M4326QC54E6RSKPCZN07DKTWW9RV4NU5PTVT0S9UCD5RGC0", "sprt1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9ucd5rgc0"],
  ])("%s %s", (chain, address, canonical) => {
    expect(normalizeWalletAddress(chain, address)).toBe(canonical);
  });

  it("trims surrounding whitespace", () => {
    expect(normalizeWalletAddress("BTC", `  ${SATOSHI_GENESIS}\n`)).toBe(SATOSHI_GENESIS);
    expect(normalizeWalletAddress("SOL", "\t11111111111111111111111111111111 ")).toBe("11111111111111111111111111111111");
  });

  it("accepts an Algorand address built from a random key, and rejects it with a broken checksum", () => {
    const key = randomBytes(32);
    const address = algorandAddress(key);
    expect(address).toHaveLength(58);
    expect(normalizeWalletAddress("ALGO", address)).toBe(address);

    const checksum = sha512_256(key).subarray(-4);
    checksum[0] ^= 0x01;
    expectInvalid("ALGO", base32nopad.encode(Uint8Array.from([...key, ...checksum])));
  });

  it("decodes the Spark address to the wallet's identity public key", () => {
    const { words } = bech32m.decode("sp1pgss9mdgv7f6cf3lq5a3feh2jtnuypgf2x438tdq79q9jxtnflj9hhq4htem47");
    expect(Buffer.from(bech32m.fromWords(words)).toString("hex")).toBe(
      "0a21" + "02eda86793ac263f053b14e6ea92e7c2050951ab13ada0f1405919734fe45bdc15",
    );
  });

  it("accepts computed TON friendly addresses in both alphabets, with or without the testnet flag", () => {
    const hash = new Uint8Array(32).fill(0xff); // encodes to "/" and "+" vs "_" and "-"
    const raw = "0:" + "f".repeat(64);
    const standard = tonFriendly(0x11, 0, hash, false);
    const urlSafe = tonFriendly(0x11, 0, hash, true);
    expect(standard).toMatch(/[+/]/);
    expect(urlSafe).toMatch(/[-_]/);
    expect(normalizeWalletAddress("TON", standard)).toBe(raw);
    expect(normalizeWalletAddress("TON", urlSafe)).toBe(raw);
    expect(normalizeWalletAddress("TON", tonFriendly(0x51 | 0x80, 0, hash))).toBe(raw);
    expect(normalizeWalletAddress("TON", tonFriendly(0x11, -1, hash))).toBe("-1:" + "f".repeat(64));
  });

  it("accepts a Cosmos address over 32 bytes (module and interchain accounts) with any prefix", () => {
    const address = bech32.encode("osmo", bech32.toWords(randomBytes(32)));
    expect(normalizeWalletAddress("COSMOS", address)).toBe(address);
  });
});

describe("normalizeWalletAddress: invalid addresses", () => {
  it("names the address and the chain in the error", () => {
    const err = rejection("ETH", " 0x123 ");
    expect(err.code).toBe("invalid_wallet_address");
    expect(err.message).toBe("0x123 is not a valid ETH address");
  });

  it.each(["ETH", "SOL", "TON"])("rejects an empty or blank %s address", (chain) => {
    expectInvalid(chain, "");
    expectInvalid(chain, "   \n");
  });

  it("rejects an unknown chain separately from a bad address", () => {
    expect(rejection("DOGE", SATOSHI_GENESIS).code).toBe("invalid_chain");
    expect(rejection("eth", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed").code).toBe("invalid_chain");
  });

  it("does not echo very long input back in full", () => {
    expect(rejection("SOL", "1".repeat(10_000)).message.length).toBeLessThan(200);
  });

  it.each([
    // EIP-55: one letter's case changed; wrong length; missing or upper-case prefix.
    ["ETH", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"],
    ["EVM", "0xfb6916095ca1df60bB79Ce92cE3Ea74c37c5d359"],
    ["ETH", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA"],
    ["ETH", "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
    ["ETH", "0X5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED"],
    ["ETH", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAez"],
    ["FLOW", "0x1654653399040a6"],
    ["FLOW", "1654653399040a61"],
    ["FLOW", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
    // 31 bytes; characters outside base58 (0, O, I, l); an Ethereum address.
    ["SOL", "1111111111111111111111111111111"],
    ["SOL", "0okenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"],
    ["ECLIPSE", "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5Dl"],
    ["SOL", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
    ["SOL", SATOSHI_GENESIS],
    // Algorand: a changed character, non-zero padding bits, wrong length, non-base32 character.
    ["ALGO", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAY5HFKA"],
    ["ALGO", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAY5HFKR"],
    ["ALGO", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAY5HFKQ"],
    ["ALGO", "Y76M3MSY6DKBRHBL7C3NNDXGS5IIMQVQVUAB6MP4XEMMGVF2QWNPL2261A"],
    // Starknet: the prime itself, more than 64 hex digits, no digits, not hex.
    ["STARK", "0x" + STARK_PRIME.toString(16)],
    ["STARK", "0x" + "f".repeat(64)],
    ["STARK", "0x0" + "1".repeat(64)],
    ["STARK", "0x"],
    ["STARK", "0xg1"],
    // Cosmos: changed checksum character, mixed case, bech32m checksum, 21-byte payload, a segwit address.
    ["COSMOS", "cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xv"],
    ["COSMOS", "cosmos1QYPQXPQ9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu"],
    ["COSMOS", bech32m.encode("cosmos", bech32m.toWords(new Uint8Array(20).fill(7)))],
    ["COSMOS", bech32.encode("cosmos", bech32.toWords(new Uint8Array(21).fill(7)))],
    ["COSMOS", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"],
    // Bitcoin base58: changed character, Litecoin version byte (valid checksum), TRON address.
    ["BTC", "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb"],
    ["BTC", base58check.encode(Uint8Array.from([0x30, ...new Uint8Array(20).fill(1)]))],
    ["BTC", "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb"],
    // BIP-173: v0 program of 16 bytes.
    ["BTC", "BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P"],
    // BIP-350 invalid addresses: unknown hrp, v1+ with bech32 checksum, v0 with bech32m checksum, bad character,
    // version 17, program of 1 and 41 bytes, mixed case, excess or non-zero padding, empty data.
    ["BTC", "tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut"],
    ["BTC", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd"],
    ["BTC", "tb1z0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqglt7rf"],
    ["BTC", "BC1S0XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ54WELL"],
    ["BTC", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh"],
    ["BTC", "tb1q0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq24jc47"],
    ["BTC", "bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4"],
    ["BTC", "BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R"],
    ["BTC", "bc1pw5dgrnzv"],
    ["BTC", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav"],
    ["BTC", "tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq47Zagq"],
    ["BTC", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf"],
    ["BTC", "tb1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vpggkg4j"],
    ["BTC", "bc1gmk9yu"],
    // Sui requires the long form; Aptos caps at 64 hex digits; neither takes other chains' formats.
    ["SUI", "0x2"],
    ["SUI", "0x" + "0".repeat(63) + "g"],
    ["APTOS", "0x" + "1".repeat(65)],
    ["APTOS", "0x"],
    ["APTOS", "11111111111111111111111111111111"],
    // TRON: changed character, a Bitcoin address (valid checksum, version 0x00), 0x41-hex form.
    ["TRON", "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwc"],
    ["TRON", SATOSHI_GENESIS],
    ["TRON", "410000000000000000000000000000000000000000"],
    // TON: changed CRC character, 47 characters, mixed alphabets, raw with bad workchain or short hash.
    ["TON", "EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2M"],
    ["TON", "EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2"],
    ["TON", "-1:" + "3".repeat(63)],
    ["TON", "128:" + "3".repeat(64)],
    ["TON", "-0:" + "3".repeat(64)],
    ["TON", "00:" + "3".repeat(64)],
    ["TON", "0:" + "g".repeat(64)],
    ["TON", "0x" + "3".repeat(64)],
    // Spark: changed checksum character, bech32 instead of bech32m, another hrp, payload without identity key.
    ["SPARK", "sp1pgss9mdgv7f6cf3lq5a3feh2jtnuypgf2x438tdq79q9jxtnflj9hhq4htem48"],
    ["SPARK", bech32.encode("sp", bech32m.decode("sp1pgss9mdgv7f6cf3lq5a3feh2jtnuypgf2x438tdq79q9jxtnflj9hhq4htem47").words)],
    ["SPARK", "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0"],
    ["SPARK", bech32m.encode("sp", bech32m.toWords(randomBytes(35)))],
    ["SPARK", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"],
  ])("%s rejects %s", (chain, address) => {
    expectInvalid(chain, address);
  });

  it("rejects a TON friendly address whose CRC is right but whose tag is unknown", () => {
    expectInvalid("TON", tonFriendly(0x00, 0, randomBytes(32)));
    expectInvalid("TON", tonFriendly(0x12, 0, randomBytes(32)));
  });

  it("rejects a TON friendly address mixing the base64 and base64url alphabets", () => {
    const standard = tonFriendly(0x11, 0, new Uint8Array(32).fill(0xff), false);
    const mixed = standard.replace("/", "_");
    expect(mixed).toMatch(/_/);
    expect(mixed).toMatch(/\//);
    expectInvalid("TON", mixed);
  });

  it("rejects a Spark payload whose key is not a compressed point", () => {
    const payload = Uint8Array.from([0x0a, 0x21, 0x04, ...randomBytes(32)]);
    expectInvalid("SPARK", bech32m.encode("sp", bech32m.toWords(payload)));
    // The same shape with an 0x02 prefix is accepted, so the check above is the prefix and nothing else.
    payload[2] = 0x02;
    const valid = bech32m.encode("sp", bech32m.toWords(payload));
    expect(normalizeWalletAddress("SPARK", valid)).toBe(valid);
  });

  it("rejects a Solana-length base58 string on chains that need a checksum", () => {
    const solana = base58.encode(randomBytes(32));
    expectInvalid("TRON", solana);
    expectInvalid("BTC", solana);
  });
});
