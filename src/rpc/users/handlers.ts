import type { ConnectRouter } from "@connectrpc/connect";
import { UsersService } from "../../gen/sigil/users/v0/users_service_pb.js";
import type { Deps } from "../../domain/deps.js";
import { environmentScope } from "../../domain/tenancy/scope.js";
import * as users from "../../domain/users/service.js";
import { apiCaller } from "../context.js";
import { orNull } from "../mappers.js";
import { toUser } from "./mappers.js";


export function registerUsers(router: ConnectRouter, deps: Deps) {
  router.service(UsersService, {
    async createUser(req, ctx) {
      const env = environmentScope(apiCaller(ctx), req.environmentId);
      const created = await users.createUser(deps, env, {
        email: orNull(req.email.trim()),
        phoneNumber: orNull(req.phoneNumber),
        alias: orNull(req.alias),
        firstName: orNull(req.firstName),
        lastName: orNull(req.lastName),
        username: orNull(req.username),
        jobTitle: orNull(req.jobTitle),
        country: orNull(req.country),
        team: orNull(req.team),
        tShirtSize: orNull(req.tShirtSize),
        policiesConsent: req.policiesConsent,
        metadata: req.metadata ?? {},
        wallets: req.wallets,
        oauthAccounts: req.oauthAccounts.map((o) => ({
          provider: o.provider,
          accountId: o.accountId,
          emails: o.emails,
          displayName: o.displayName || undefined,
          username: o.username || undefined,
          photos: o.photos,
          profile: o.profile,
        })),
      });
      return { user: toUser(created) };
    },
    async getUser(req, ctx) {
      return { user: toUser(await users.getUser(deps, environmentScope(apiCaller(ctx), req.environmentId), req.userId)) };
    },
  });
}
