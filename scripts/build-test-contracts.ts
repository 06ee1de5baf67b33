/**
 * `npm run build:contracts`: compiles the test chain's own contracts (test/e2e/support/contracts/*.sol) with
 * solc from npm (WebAssembly, offline; OpenZeppelin imports read from node_modules) and writes one artefact
 * per contract, { contractName, sourceName, sourcesDigest, compiler, libraries, settings, abi, bytecode },
 * into test/e2e/support/contracts/build/. The artefacts are committed: tests deploy them and never compile
 * (solc in WebAssembly takes seconds per source). Run it after changing a .sol file (a test compares the
 * sources' digest with the artefacts'). The ERC-4337 EntryPoint and SimpleAccountFactory are not
 * compiled here: test/e2e/support/evm-chain.ts deploys the artefacts @account-abstraction/contracts 0.8.0
 * publishes, the bytecode of the official release.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import openZeppelin from "@openzeppelin/contracts/package.json" with { type: "json" };
import solc from "solc";
import { contractSourceDir, contractSources, sourcesDigest } from "../test/e2e/support/contracts/sources.js";

const buildDir = path.join(contractSourceDir, "build");
const require = createRequire(import.meta.url);

// Cancun rather than solc's default (the newest fork): the artefacts then run on any chain of the last two
// years, as the EntryPoint's own (compiled for cancun) do.
const settings = {
  evmVersion: "cancun",
  optimizer: { enabled: true, runs: 200 },
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
};

interface SolcOutput {
  errors?: { severity: "error" | "warning" | "info"; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

/** solc asks for each import it cannot find among the inputs: package paths resolve in node_modules. */
function findImport(importPath: string): { contents: string } | { error: string } {
  try {
    return { contents: readFileSync(require.resolve(importPath), "utf8") };
  } catch (err) {
    return { error: `${importPath}: ${(err as Error).message}` };
  }
}

const sources = contractSources();
const input = { language: "Solidity", sources: Object.fromEntries(sources.map((s) => [s.name, { content: s.content }])), settings };
const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as SolcOutput;

const problems = output.errors ?? [];
for (const p of problems.filter((e) => e.severity !== "info")) console.error(p.formattedMessage);
if (problems.some((e) => e.severity === "error")) process.exit(1);

rmSync(buildDir, { recursive: true, force: true });
mkdirSync(buildDir, { recursive: true });
const compiler = `solc ${solc.version() as string}`;
// What the artefact was built from: the library the sources import, and the sources themselves.
const libraries = { "@openzeppelin/contracts": openZeppelin.version };
const digest = sourcesDigest(sources);
for (const { name: sourceName } of sources) {
  for (const [contractName, out] of Object.entries(output.contracts?.[sourceName] ?? {})) {
    const artefact = {
      contractName,
      sourceName,
      sourcesDigest: digest,
      compiler,
      libraries,
      settings: { evmVersion: settings.evmVersion, optimizer: settings.optimizer },
      abi: out.abi,
      bytecode: `0x${out.evm.bytecode.object}`,
    };
    writeFileSync(path.join(buildDir, `${contractName}.json`), `${JSON.stringify(artefact, null, 2)}\n`);
    console.log(`${contractName}: ${out.evm.bytecode.object.length / 2} bytes of init code`);
  }
}
