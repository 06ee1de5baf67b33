import { describe, expect, it } from "vitest";
import { parseJsonWithBigInts } from "../../src/adapters/json-bigints.js";

describe("parseJsonWithBigInts (the Solana node's answers)", () => {
  it("keeps integers past 2^53 exact as bigints and leaves everything else as JSON.parse reads it", () => {
    const text = '{"lamports":18446744073709551615,"small":42,"neg":-9007199254740993,"f":1.5e300,"s":"12345678901234567890","esc":"a\\"b 99999999999999999"}';
    expect(parseJsonWithBigInts(text)).toEqual({
      lamports: 18446744073709551615n,
      small: 42,
      neg: -9007199254740993n,
      f: 1.5e300,
      s: "12345678901234567890",
      esc: 'a"b 99999999999999999',
    });
  });
});
