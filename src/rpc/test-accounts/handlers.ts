import type { ConnectRouter } from "@connectrpc/connect";
import { TestAccountsService } from "../../gen/sigil/test_accounts/v0/test_accounts_service_pb.js";
import type { TestAccountRecord } from "../../db/repositories/test-accounts.js";
import type { Deps } from "../../domain/deps.js";
import * as testAccount from "../../domain/test-accounts/service.js";
import { orNull, str, ts } from "../mappers.js";
import { environmentOf } from "../tenant-context.js";

const toTestAccount = (a: TestAccountRecord, code: string) => ({
  id: a.id,
  email: str(a.email),
  phone: str(a.phoneNumber),
  code,
  projectEnvironmentId: a.environmentId,
  createdAt: ts(a.createdAt),
});

export function registerTestAccounts(router: ConnectRouter, deps: Deps) {
  router.service(TestAccountsService, {
    async getTestAccount(req, ctx) {
      const access = environmentOf(ctx);
      const { account, otpCode } = await testAccount.getTestAccount(deps, access);
      return { testAccount: toTestAccount(account, otpCode) };
    },
    async createTestAccount(req, ctx) {
      const access = environmentOf(ctx);
      const { account, otpCode } = await testAccount.createTestAccount(deps, access, {
        email: orNull(req.email),
        phoneNumber: orNull(req.phoneNumber),
      });
      return { testAccount: toTestAccount(account, otpCode) };
    },
    async deleteTestAccount(req, ctx) {
      const access = environmentOf(ctx);
      await testAccount.deleteTestAccount(deps, access);
      return {};
    },
  });
}
