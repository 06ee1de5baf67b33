import { runCompat } from "./runner.js";
import { passkeysApi } from "./scenarios/passkeys.js";

runCompat("passkeys (sign-in and MFA devices)", passkeysApi);
