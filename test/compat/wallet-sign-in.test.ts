import { walletSignInApi } from "./scenarios/wallet-sign-in.js";
import { runCompat } from "./runner.js";

runCompat("wallet signatures", walletSignInApi);
