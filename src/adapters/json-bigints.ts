/** Integer literals longer than this many digits may not be exact as a JSON number (2^53 has 16). */
const SAFE_DIGITS = 15;
/** A parsed string starts with this only when we marked it: a node's own text carries no NUL character. */
const MARK = "\u0000bigint:";
/** The mark as JSON text (control characters must be escaped inside a JSON string). */
const MARK_JSON = "\\u0000bigint:";

/**
 * JSON.parse, except that integers too large to be exact as numbers become bigints (Solana's lamports and
 * u64 fields can pass 2^53). The text is scanned once for integer literals outside strings; long ones are
 * quoted with a mark that the reviver turns into a bigint.
 */
export function parseJsonWithBigInts(text: string): unknown {
  let out = "";
  let inString = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === "\\") out += text[++i] ?? "";
      else if (c === '"') inString = false;
      i++;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
      i++;
      continue;
    }
    if (c === "-" || (c >= "0" && c <= "9")) {
      let j = i + 1;
      while (j < text.length && /[0-9.eE+-]/.test(text[j]!)) j++;
      const literal = text.slice(i, j);
      out += /^-?\d+$/.test(literal) && literal.replace("-", "").length > SAFE_DIGITS ? `"${MARK_JSON}${literal}"` : literal;
      i = j;
      continue;
    }
    out += c;
    i++;
  }
  return JSON.parse(out, (_key, value) => (typeof value === "string" && value.startsWith(MARK) ? BigInt(value.slice(MARK.length)) : value));
}
