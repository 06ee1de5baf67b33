import { SdkWalletSignInService, file_sigil_wallet_sign_in_v0_wallet_sign_in_service } from "../../gen/sigil/wallet_sign_in/v0/wallet_sign_in_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerWalletSignIn } from "./handlers.js";

/** Signing in with a wallet signature on the SDK surface: nonce, verify, link, unlink, transfer, merge. */
export const walletSignInModule: ApiModule = {
  services: [SdkWalletSignInService],
  files: [file_sigil_wallet_sign_in_v0_wallet_sign_in_service],
  register: (router, deps) => registerWalletSignIn(router, deps),
};
