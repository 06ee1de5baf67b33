import { usersApi } from "./scenarios/users.js";
import { sessionsApi } from "./scenarios/sessions.js";
import { mfaApi } from "./scenarios/mfa.js";
import { mfaSettingsApi } from "./scenarios/mfa-settings.js";
import { customFieldsApi } from "./scenarios/custom-fields.js";
import { visitsApi } from "./scenarios/visits.js";
import { analyticsApi } from "./scenarios/analytics.js";
import { exportsApi } from "./scenarios/exports.js";
import { runCompat } from "./runner.js";

runCompat("users", { ...usersApi, ...sessionsApi, ...mfaApi, ...mfaSettingsApi, ...customFieldsApi, ...visitsApi, ...analyticsApi, ...exportsApi });
