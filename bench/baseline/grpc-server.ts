/**
 * The bare @grpc/grpc-js baseline for UsersService/GetUser: the same work (bench/baseline/work.ts), the
 * request and response as the same protobuf messages (binary), no interceptors. A small node:http
 * listener on HEALTH_PORT tells the bench when it is up.
 */
import http from "node:http";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { GetUserRequestSchema, GetUserResponseSchema, type GetUserRequest } from "../../src/gen/sigil/users/v0/users_service_pb.js";
import { toUser } from "../../src/rpc/users/mappers.js";
import { BareError, getUser } from "./work.js";

const service: grpc.ServiceDefinition = {
  GetUser: {
    path: "/sigil.users.v0.UsersService/GetUser",
    requestStream: false,
    responseStream: false,
    requestSerialize: (m: GetUserRequest) => Buffer.from(toBinary(GetUserRequestSchema, m)),
    requestDeserialize: (b: Buffer) => fromBinary(GetUserRequestSchema, b),
    responseSerialize: (m: Uint8Array) => Buffer.from(m),
    responseDeserialize: (b: Buffer) => b,
  },
};

const server = new grpc.Server();
server.addService(service, {
  GetUser: (call: grpc.ServerUnaryCall<GetUserRequest, Uint8Array>, done: grpc.sendUnaryData<Uint8Array>) => {
    const auth = call.metadata.get("authorization")[0]?.toString();
    getUser(auth, call.request.environmentId, call.request.userId).then(
      ({ aggregate, fields }) => done(null, toBinary(GetUserResponseSchema, create(GetUserResponseSchema, { user: toUser(aggregate, fields.filter((f) => f.required)) }))),
      (err: unknown) => done({ code: err instanceof BareError && err.status === 404 ? grpc.status.NOT_FOUND : grpc.status.UNAUTHENTICATED, details: String(err) }),
    );
  },
});
server.bindAsync(`127.0.0.1:${process.env.PORT}`, grpc.ServerCredentials.createInsecure(), (err) => {
  if (err) throw err;
  http.createServer((_req, res) => res.end("ok")).listen(Number(process.env.HEALTH_PORT), "127.0.0.1");
});
