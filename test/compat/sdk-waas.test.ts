import { runCompat } from "./runner.js";
import { sdkWaasApi } from "./scenarios/sdk-waas.js";

runCompat("threshold wallets (WaaS)", sdkWaasApi);
