import { TokensService, file_sigil_tokens_v0_tokens_service } from "../../gen/sigil/tokens/v0/tokens_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerTokens } from "./handlers.js";

export const tokensModule: ApiModule = {
  services: [TokensService],
  files: [file_sigil_tokens_v0_tokens_service],
  register: registerTokens,
};
