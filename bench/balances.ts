/**
 * `npm run bench:balances`: token balance reads per second (GET /api/v0/sdk/{env}/chains/EVM/balances, the
 * published client's getAccountBalances) against the local EVM chain (test/e2e/support/evm-chain.ts,
 * Hardhat's network in this process), each case beside the same work without Sigil's request path and the
 * node's own rate, in the same run, loopback only, bounded in time:
 *
 *   1. the node alone: eth_getBalance posted to its JSON-RPC server (what any read costs at the least);
 *   2. cold: `forceRefresh=true`, so every call reads the node (the native balance, and one deployless
 *      multicall for the ERC-20s: the well-known list of the network, empty here, and the whitelisted
 *      test token), then the token metadata from the store;
 *   3. cached: the same read answered from the store within its 5 s window.
 *
 * Cases 2 and 3 run on Sigil (`sigil start api`, beside a worker) and on a bare node:http server that calls the domain's
 * accountBalances itself (bench/baseline/balances-server.ts), taking turns (BENCH_ROUNDS, default 4) of
 * BENCH_SECONDS each (default 10; bench/support/paired.ts), BENCH_CONNECTIONS callers (default 10); the ratio Sigil / bare is what the
 * request path costs. Print-only: the numbers are recorded in docs/benchmarks.md by hand.
 *
 *   DATABASE_URL=... REDIS_URL=... TEMPORAL_ADDRESS=... npm run bench:balances
 */
import os from "node:os";
import { isDeepStrictEqual } from "node:util";
import { bootstrapTenant } from "../src/domain/tenancy/bootstrap.js";
import { startEvmChain } from "../test/e2e/support/evm-chain.js";
import { benchDeployment } from "./support/deps.js";
import { seconds } from "./support/env.js";
import { httpLoad } from "./support/load.js";
import { paired, row, TABLE_HEADER } from "./support/paired.js";
import { startBaseline, startSigil, type Running } from "./support/processes.js";

const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const port = Number(process.env.BENCH_PORT ?? 18490);

const chain = await startEvmChain();
const { database, childEnv, deps } = await benchDeployment("balances", { SIGIL_EVM_RPC_URLS: JSON.stringify({ [chain.chainId]: chain.rpcUrl }) });
const running: Running[] = [];

try {
  const tenant = await bootstrapTenant(deps.db);
  const env = tenant.environmentId;
  // An address holding ether and the test token: the answer has two balances, as a wallet's usually has more.
  const holder = chain.accounts[1]!.address;
  await chain.mintErc20(holder, 1234n * 10n ** 18n);

  // The api answers healthy once a worker polls its task queue; a balance read starts no workflow.
  running.push(await startSigil("worker", port + 10, [], childEnv));
  const sigil = await startSigil("api", port, [], childEnv);
  running.push(sigil);
  const bare = await startBaseline("balances-server.ts", port + 1, port + 1, [], { ...childEnv, BENCH_ENV: env });
  running.push(bare);

  const query = (cold: boolean) => `accountAddress=${holder}&networkId=${chain.chainId}&whitelistedContracts=${chain.contracts.erc20}${cold ? "&forceRefresh=true" : ""}`;
  const url = (server: Running, cold: boolean) => `${server.base}/api/v0/sdk/${env}/chains/EVM/balances?${query(cold)}`;
  // The proof that what is measured is right: both answer the two balances the chain holds, the same.
  const answers = await Promise.all([sigil, bare].map(async (s) => (await fetch(url(s, true))).json()));
  if (!isDeepStrictEqual(answers[0], answers[1]) || (answers[0] as unknown[]).length !== 2) {
    throw new Error(`Sigil and the baseline answer differently: ${JSON.stringify(answers)}`);
  }

  const nodeBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getBalance", params: [holder, "latest"] });
  const node = await httpLoad({ url: chain.rpcUrl, method: "POST", headers: { "content-type": "application/json" }, body: nodeBody, connections, seconds });

  const rows: string[] = [];
  for (const cold of [true, false]) {
    const sides = await paired(bare, sigil, (server, s) => httpLoad({ url: url(server, cold), connections, seconds: s }), { rounds: ROUNDS, seconds: seconds * ROUNDS });
    rows.push(row(cold ? "cold (forceRefresh: the node read on every call)" : "cached (the store's 5 s window)", sides));
    rows.push(`| (Sigil / the node's eth_getBalance) | ${Math.round((sides[1].rps / node.rps) * 100)} % | | | | | | | | |`);
  }
  console.log(`\n${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), Node ${process.version}, ${connections} connections, ${seconds} s per side and turn, ${ROUNDS} turns`);
  console.log(`the node alone: eth_getBalance ${node.rps}/s (p50 ${node.p50} ms, p99 ${node.p99} ms)`);
  console.log(TABLE_HEADER);
  for (const r of rows) console.log(r);
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}. The chain runs in this process, beside the load generator.`);
} finally {
  for (const r of running.reverse()) await r.stop();
  await deps.close();
  await database.drop();
  await chain.close();
}
