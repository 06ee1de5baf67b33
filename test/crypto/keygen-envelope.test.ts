import { p256 } from "@noble/curves/nist.js";
import { base64urlnopad } from "@scure/base";
import { describe, expect, it } from "vitest";
import { keygenIdKey, newKeygenKey } from "../../src/crypto/keygen-envelope.js";
import { keygenIdOf } from "../../src/crypto/keygen-id.js";
import { codeOf } from "../support/domain-errors.js";

const idOf = (bytes: Uint8Array) => base64urlnopad.encode(bytes);

describe("keygen ids", () => {
  it("name the P-256 key noble decodes from the same compressed point, and round-trip through keygenIdOf", () => {
    for (let i = 0; i < 50; i++) {
      const { keygenId } = newKeygenKey();
      const jwk = keygenIdKey(keygenId).export({ format: "jwk" });
      const point = p256.Point.fromBytes(base64urlnopad.decode(keygenId)).toAffine();
      expect(jwk.x).toBe(base64urlnopad.encode(p256.Point.Fn.toBytes(point.x)));
      expect(jwk.y).toBe(base64urlnopad.encode(p256.Point.Fn.toBytes(point.y)));
      expect(keygenIdOf(jwk)).toBe(keygenId);
    }
  });

  it("refuse an x with no point on the curve, a wrong prefix or length, and non-base64url, as 400 invalid_keygen_id", () => {
    const valid = base64urlnopad.decode(newKeygenKey().keygenId);
    const offCurve = Uint8Array.from(valid);
    // Flip low bits of x until noble finds no point there: the service must refuse that x too.
    for (let bit = 0; ; bit++) {
      offCurve[32] = valid[32]! ^ (bit + 1);
      try {
        p256.Point.fromBytes(offCurve);
      } catch {
        break;
      }
    }
    const prefixed = Uint8Array.from(valid);
    prefixed[0] = 4;
    for (const id of [idOf(offCurve), idOf(prefixed), idOf(valid.subarray(1)), "not base64url!"]) {
      expect(codeOf(() => keygenIdKey(id))).toBe("invalid_keygen_id");
    }
  });
});
