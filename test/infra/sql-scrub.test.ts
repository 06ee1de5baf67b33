import { describe, expect, it } from "vitest";
import { scrubStatement } from "../../src/infra/sql-scrub.js";

describe("scrubStatement (a span's db.statement)", () => {
  it("keeps a statement's shape and drops every literal pg-promise formatted into it", () => {
    expect(scrubStatement(`SELECT * FROM users WHERE email = 'a@example.com' AND environment_id = '0b9f…' LIMIT 20`)).toBe(
      "SELECT * FROM users WHERE email = ? AND environment_id = ? LIMIT ?",
    );
    expect(scrubStatement(`INSERT INTO api_tokens(hash, note) VALUES('\\x5f1a', 'it''s sgl_abc'), (E'a\\nb', -3.5e2)`)).toBe(
      "INSERT INTO api_tokens(hash, note) VALUES(?, ?), (?, ?)",
    );
    expect(scrubStatement("SELECT $body$secret$body$, $$x$$ FROM t2 WHERE a = $1")).toBe("SELECT ?, ? FROM t2 WHERE a = $1");
  });

  it("cuts a long statement", () => {
    expect(scrubStatement(`SELECT ${"a, ".repeat(2000)}b`).length).toBeLessThanOrEqual(2001);
  });
});
