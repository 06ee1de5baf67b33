import { InvitesService, file_sigil_invites_v0_invites_service } from "../../gen/sigil/invites/v0/invites_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerInvites } from "./handlers.js";

export const invitesModule: ApiModule = {
  services: [InvitesService],
  files: [file_sigil_invites_v0_invites_service],
  register: registerInvites,
};
