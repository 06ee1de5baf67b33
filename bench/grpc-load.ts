/**
 * A gRPC load generator run as a child process of bench/run.ts (so that the generator's own CPU is not
 * the bench process's): BENCH_GRPC_CALLERS concurrent callers call UsersService/GetUser on BENCH_GRPC_BASE
 * for BENCH_SECONDS, over one HTTP/2 connection (a @grpc/grpc-js channel), and the latencies (ms) are printed as one JSON line. The
 * same generator drives Sigil and the bare @grpc/grpc-js baseline.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { GetUserRequestSchema, GetUserResponseSchema } from "../src/gen/sigil/users/v0/users_service_pb.js";
import { callLoad } from "./support/load.js";

const { BENCH_GRPC_BASE, BENCH_GRPC_ENV, BENCH_GRPC_USER, BENCH_GRPC_TOKEN } = process.env;
const callers = Number(process.env.BENCH_GRPC_CALLERS ?? 5);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
if (!BENCH_GRPC_BASE || !BENCH_GRPC_ENV || !BENCH_GRPC_USER || !BENCH_GRPC_TOKEN) throw new Error("started by bench/run.ts");

// @grpc/grpc-js as the client: a lighter generator than connect-node's gRPC transport (which left the
// generator, not the servers, as the bound). Binary protobuf both ways, as any gRPC client sends.
const client = new grpc.Client(new URL(BENCH_GRPC_BASE).host, grpc.credentials.createInsecure());
const metadata = new grpc.Metadata();
metadata.set("authorization", `Bearer ${BENCH_GRPC_TOKEN}`);
const request = create(GetUserRequestSchema, { environmentId: BENCH_GRPC_ENV, userId: BENCH_GRPC_USER });
const call = () =>
  new Promise((resolve, reject) =>
    client.makeUnaryRequest(
      "/sigil.users.v0.UsersService/GetUser",
      (m: typeof request) => Buffer.from(toBinary(GetUserRequestSchema, m)),
      (b: Buffer) => fromBinary(GetUserResponseSchema, b),
      request,
      metadata,
      (err, value) => (err ? reject(err) : resolve(value)),
    ),
  );
// Warm the connection and the JIT first; only the measured window is reported.
await callLoad(call, callers, 1);
const r = await callLoad(call, callers, seconds);
process.stdout.write(JSON.stringify(r) + "\n");
client.close();
