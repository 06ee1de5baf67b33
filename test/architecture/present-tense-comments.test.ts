import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Comments in src/ say why the code is as it is, in the present: not which issue asked for it ("issue 23"),
 * nor what is planned ("to come", "later"). The history lives in docs/decisions.md and the git log. Only
 * comments are held to it: a message such as "retry later" tells a client what to do and is no plan.
 * src/gen is generated from the protos and not written here.
 */
const FORBIDDEN: [RegExp, string][] = [
  [/\bissues?\s+#?\d+/i, "names an issue"],
  [/\bto come\b/i, "announces work to come"],
  [/\blater\b/i, "says 'later'"],
];

const src = fileURLToPath(new URL("../../src", import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return file === path.join(src, "gen") ? [] : files(file);
    return /\.(ts|sql)$/.test(file) ? [file] : [];
  });
}

/** The comment text of each line: `//` and `/* ... *\/` in TypeScript, `--` in SQL. */
export function comments(text: string, sql: boolean): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let inBlock = false;
  text.split("\n").forEach((raw, i) => {
    let rest = raw;
    let comment = "";
    for (;;) {
      if (inBlock) {
        const end = rest.indexOf("*/");
        comment += ` ${end < 0 ? rest : rest.slice(0, end)}`;
        if (end < 0) break;
        inBlock = false;
        rest = rest.slice(end + 2);
        continue;
      }
      const line = sql ? /(^|\s)--(.*)$/.exec(rest) : /(^|\s)\/\/(.*)$/.exec(rest);
      const block = sql ? null : /(^|\s)\/\*/.exec(rest);
      if (block && (!line || block.index < line.index)) {
        inBlock = true;
        rest = rest.slice(block.index + block[0].length);
        continue;
      }
      if (line) comment += ` ${line[2]}`;
      break;
    }
    if (comment.trim()) out.push({ line: i + 1, text: comment.trim() });
  });
  return out;
}

describe("comments in src/", () => {
  it("speak in the present: no issue numbers, no 'to come', no 'later'", () => {
    const offending = files(src).flatMap((file) =>
      comments(readFileSync(file, "utf8"), file.endsWith(".sql")).flatMap(({ line, text }) =>
        FORBIDDEN.filter(([re]) => re.test(text)).map(([, what]) => `${path.relative(src, file)}:${line} ${what}: ${text}`),
      ),
    );
    expect(offending).toEqual([]);
  });

  it("are told apart from code and strings (the check's own check)", () => {
    const ts = 'const u = "http://x/later"; // kept for issue 4\n/**\n * more to come\n */\nthrow new Error("retry later");';
    expect(comments(ts, false).map((c) => c.line)).toEqual([1, 2, 3]);
    expect(comments(ts, false)[0]!.text).toBe("kept for issue 4");
    expect(comments("SELECT 1; -- done later\n", true)).toEqual([{ line: 1, text: "done later" }]);
  });
});
