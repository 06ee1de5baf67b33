import { GatesService, file_sigil_gates_v0_gates_service } from "../../gen/sigil/gates/v0/gates_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerGates } from "./handlers.js";

/** Token gates: sign-in rules on what a wallet holds. */
export const gatesModule: ApiModule = {
  services: [GatesService],
  files: [file_sigil_gates_v0_gates_service],
  register: (router, deps) => registerGates(router, deps),
};
