import { sdkPreflights } from "./scenarios/sdk-preflights.js";
import { ownAccountApi } from "./scenarios/own-account.js";
import { sdkSettingsApi } from "./scenarios/sdk-settings.js";
import { runCompat } from "./runner.js";

runCompat("what a client app loads first, the user's own account, and the SDK paths' preflights", { ...sdkSettingsApi, ...ownAccountApi, ...sdkPreflights });
