// Sigil through the published generated client, unchanged: `@dynamic-labs/sdk-api` (a dev dependency).
// Usage (after `npm start` and `npx sigil bootstrap`, see the README):
//   API=http://localhost:8080/api/v0 TOKEN=sgl_… ENV=<environmentId> node examples/published-client.mjs
import { AllowlistsApi, Configuration, TokensApi, UsersApi, WalletsApi } from "@dynamic-labs/sdk-api";

const { API = "http://localhost:8080/api/v0", TOKEN, ENV } = process.env;
if (!TOKEN || !ENV) throw new Error("set TOKEN and ENV (see `npx sigil bootstrap --json`)");

// The client attaches accessToken only where its spec declares security: send the header as well.
const config = new Configuration({ basePath: API, accessToken: TOKEN, headers: { Authorization: `Bearer ${TOKEN}` } });

const users = new UsersApi(config);
const { user } = await users.createUser({
  environmentId: ENV,
  internalBulkUpdateUserFields: { email: `client-${Date.now()}@example.com`, firstName: "Ada" },
});
console.log("created user", user.id, user.email);

const page = await users.getEnvironmentUsers({ environmentId: ENV, limit: 5 });
console.log("users in the environment:", page.count);

const wallets = await new WalletsApi(config).getWalletsByUserId({ environmentId: ENV, userId: user.id });
console.log("wallets of the user:", wallets.count);

const allowlist = await new AllowlistsApi(config).createAllowlistByEnvironmentId({
  environmentId: ENV,
  postAllowlistsRequest: { name: "Early access", outcome: "siteAccess" },
});
console.log("allowlist", allowlist.id, allowlist.name, "enabled:", allowlist.enabledAt ?? null);

const { tokens } = await new TokensApi(config).getTokens({ environmentId: ENV });
console.log("API tokens of the environment:", tokens?.length);
