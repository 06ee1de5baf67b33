import { walletsApi } from "./scenarios/wallets.js";
import { waasApi } from "./scenarios/waas.js";
import { chainsApi } from "./scenarios/chains.js";
import { runCompat } from "./runner.js";

runCompat("wallets", { ...walletsApi, ...waasApi, ...chainsApi });
