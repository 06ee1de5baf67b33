import { SdkPasskeysService, file_sigil_passkeys_v0_passkeys_service } from "../../gen/sigil/passkeys/v0/passkeys_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerPasskeys } from "./handlers.js";

/** Passkeys on the SDK surface: registration, sign-in, the user's passkeys, and passkey MFA devices. */
export const passkeysModule: ApiModule = {
  services: [SdkPasskeysService],
  files: [file_sigil_passkeys_v0_passkeys_service],
  register: (router, deps) => registerPasskeys(router, deps),
};
