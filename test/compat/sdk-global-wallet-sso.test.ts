import { runCompat } from "./runner.js";
import { sdkGlobalWalletSsoApi } from "./scenarios/sdk-global-wallet-sso.js";

runCompat("global wallet connections and the SSO check", sdkGlobalWalletSsoApi);
