// Sigil's management API from TypeScript through the generated service descriptors (src/gen, `npm run gen`)
// and Connect's client (@connectrpc/connect v2): typed requests and responses, over gRPC (HTTP/2) or the
// Connect protocol. Usage (after `npm start` and `npx sigil bootstrap`, see README.md beside this file):
//   SIGIL_TOKEN=sgl_… SIGIL_ENVIRONMENT_ID=<environmentId> npx tsx examples/connect-client/main.ts
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { fromJson } from "@bufbuild/protobuf";
import { ListValueSchema } from "@bufbuild/protobuf/wkt";
import { TokensService } from "../../src/gen/sigil/tokens/v0/tokens_service_pb.js";
import { UsersService } from "../../src/gen/sigil/users/v0/users_service_pb.js";

const { SIGIL_URL = "http://localhost:8080", SIGIL_TOKEN, SIGIL_ENVIRONMENT_ID, SIGIL_PROTOCOL = "grpc" } = process.env;
if (!SIGIL_TOKEN || !SIGIL_ENVIRONMENT_ID) throw new Error("set SIGIL_TOKEN and SIGIL_ENVIRONMENT_ID (see `npx sigil bootstrap --json`)");
if (SIGIL_PROTOCOL !== "grpc" && SIGIL_PROTOCOL !== "connect") throw new Error("SIGIL_PROTOCOL is grpc or connect");

// The management token goes in the Authorization header of every call, as on the REST API.
const bearer: Interceptor = (next) => (req) => {
  req.header.set("Authorization", `Bearer ${SIGIL_TOKEN}`);
  return next(req);
};

// The api serves both protocols on its one port (h2c for gRPC, HTTP/1.1 for Connect).
const transport =
  SIGIL_PROTOCOL === "grpc"
    ? createGrpcTransport({ baseUrl: SIGIL_URL, interceptors: [bearer] })
    : createConnectTransport({ baseUrl: SIGIL_URL, httpVersion: "1.1", interceptors: [bearer] });

const users = createClient(UsersService, transport);
const tokens = createClient(TokensService, transport);
const environmentId = SIGIL_ENVIRONMENT_ID;

const { user } = await users.createUser({ environmentId, email: `connect-${Date.now()}@example.com`, firstName: "Ada" });
console.log(`created user ${user!.id} ${user!.email}`);

const page = await users.listUsers({ environmentId, limit: 5, orderBy: "createdAt:desc" });
console.log(`users in the environment: ${page.count}; newest: ${page.users.map((u) => u.email).join(", ")}`);

// A token that can only read users; its secret is returned this once. permissions is a ListValue (so that an
// absent list, meaning "all the caller has", differs from an empty one): built from its JSON form.
const permissions = fromJson(ListValueSchema, ["users.read"]);
const { token } = await tokens.createToken({ environmentId, note: "read-only reporting", permissions });
console.log(`created token ${token!.id} with ${token!.permissions.join(", ")}: ${token!.rawToken.slice(0, 8)}…`);

// An error is a ConnectError: the gRPC status code, the message, and the service's snake_case code (the REST
// body's `code`) in the sigil-error-code metadata.
try {
  await users.getUser({ environmentId, userId: "00000000-0000-4000-8000-000000000000" });
} catch (err) {
  const e = ConnectError.from(err);
  console.log(`unknown user: ${Code[e.code]} ${e.metadata.get("sigil-error-code")}: ${e.rawMessage}`);
}
