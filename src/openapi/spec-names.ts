/**
 * The operation names of the service's contract (docs/spec/operations.md: one table row per operation,
 * `| tag | group | method | path | operation |`, paths relative to the /api/v0 base URL). An operation of the
 * document takes the contract's name when its method and path are the contract's, so a reader of the spec
 * and of the reference finds the same name; parameter names do not count, only where they are.
 */
export function specOperationNames(markdown: string, basePath = "/api/v0"): Map<string, string> {
  const names = new Map<string, string>();
  for (const line of markdown.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    // ["", tag, group, method, path, operation, ""]
    if (cells.length < 7 || !/^[A-Z]+$/.test(cells[3]) || !cells[4].startsWith("/")) continue;
    const key = operationKey(cells[3], basePath + cells[4]);
    if (!names.has(key)) names.set(key, cells[5]);
  }
  return names;
}

/** `GET /api/v0/users/{}`: the method and the path with its parameters unnamed. */
export function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/\{[^}]*\}/g, "{}")}`;
}
