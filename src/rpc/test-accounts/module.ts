import { TestAccountsService, file_sigil_test_accounts_v0_test_accounts_service } from "../../gen/sigil/test_accounts/v0/test_accounts_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerTestAccounts } from "./handlers.js";

/** Test accounts: an environment's sign-in account for app-store reviewers. */
export const testAccountsModule: ApiModule = {
  services: [TestAccountsService],
  files: [file_sigil_test_accounts_v0_test_accounts_service],
  register: (router, deps) => registerTestAccounts(router, deps),
};
