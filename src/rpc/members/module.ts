import { MembersService, file_sigil_members_v0_members_service } from "../../gen/sigil/members/v0/members_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerMembers } from "./handlers.js";

/** Members: the accounts of an organization and their roles. */
export const membersModule: ApiModule = {
  services: [MembersService],
  files: [file_sigil_members_v0_members_service],
  register: (router, deps) => registerMembers(router, deps),
};
