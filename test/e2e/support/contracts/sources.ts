import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** The Solidity sources of the local EVM chain's own contracts (this directory), by file name. */
export const contractSourceDir = import.meta.dirname;

export function contractSources(): { name: string; content: string }[] {
  return readdirSync(contractSourceDir)
    .filter((f) => f.endsWith(".sol"))
    .sort()
    .map((name) => ({ name, content: readFileSync(path.join(contractSourceDir, name), "utf8") }));
}

/**
 * One digest of every source, written into each artefact by `npm run build:contracts`: a source edited
 * without rebuilding no longer matches its artefacts, which a test checks without compiling.
 */
export function sourcesDigest(sources = contractSources()): string {
  const hash = createHash("sha256");
  // Line endings normalized: a checkout with CRLF (git's autocrlf) holds the same sources.
  for (const { name, content } of sources) hash.update(`${name}\0${content.replace(/\r\n/g, "\n")}\0`);
  return hash.digest("hex");
}
