import { SdkChatSignInService, file_sigil_chat_sign_in_v0_chat_sign_in_service } from "../../gen/sigil/chat_sign_in/v0/chat_sign_in_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerChatSignIn } from "./handlers.js";

/** Signing in with the chat platform's login widget on the SDK surface. */
export const chatSignInModule: ApiModule = {
  services: [SdkChatSignInService],
  files: [file_sigil_chat_sign_in_v0_chat_sign_in_service],
  register: (router, deps) => registerChatSignIn(router, deps),
};
