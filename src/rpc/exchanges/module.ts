import { ExchangesService, file_sigil_exchanges_v0_exchanges_service } from "../../gen/sigil/exchanges/v0/exchanges_service_pb.js";
import type { ApiModule } from "../module.js";
import { registerExchanges } from "./handlers.js";

/** Exchange connections of an environment (write-only credentials). */
export const exchangesModule: ApiModule = {
  services: [ExchangesService],
  files: [file_sigil_exchanges_v0_exchanges_service],
  register: (router, deps) => registerExchanges(router, deps),
};
