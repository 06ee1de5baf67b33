import { TokensService, file_sigil_tokens_v0_tokens_service } from "../../gen/sigil/tokens/v0/tokens_service_pb.js";
import { UserTokensService, file_sigil_tokens_v0_user_tokens_service } from "../../gen/sigil/tokens/v0/user_tokens_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerTokens } from "./handlers.js";

/** Environment tokens and the calling account's member tokens. */
export const tokensModule: ApiModule = {
  services: [TokensService, UserTokensService],
  files: [file_sigil_tokens_v0_tokens_service, file_sigil_tokens_v0_user_tokens_service],
  register: registerTokens,
};
