/**
 * A SQL text with its literal values taken out, for a span's db.statement. pg-promise formats most values
 * into the text it sends (quoted strings, numbers, bytea as '\x..'), and those values include emails, token
 * hashes and sealed secrets: a trace backend must see which statement ran, never with what.
 */
const QUOTED = /[EeXxBbUu]?'(?:[^']|'')*'/g;
const DOLLAR_QUOTED = /\$([A-Za-z_]*)\$[\s\S]*?\$\1\$/g;
const NUMBER = /(?<![\w$])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\b/g;
/** Long statements (a batch insert's VALUES list) are cut: the shape is in the start. */
const MAX_LENGTH = 2_000;

export function scrubStatement(text: string): string {
  const scrubbed = text.replace(DOLLAR_QUOTED, "?").replace(QUOTED, "?").replace(NUMBER, "?");
  return scrubbed.length > MAX_LENGTH ? `${scrubbed.slice(0, MAX_LENGTH)}…` : scrubbed;
}
