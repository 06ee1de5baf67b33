import { settingsApi } from "./scenarios/settings.js";
import { allowlistsApi } from "./scenarios/allowlists.js";
import { gatesApi } from "./scenarios/gates.js";
import { externalJwtApi } from "./scenarios/external-jwt.js";
import { testAccountApi } from "./scenarios/test-account.js";
import { runCompat } from "./runner.js";

runCompat("settings", { ...settingsApi, ...allowlistsApi, ...gatesApi, ...externalJwtApi, ...testAccountApi });
