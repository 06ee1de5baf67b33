import { sdkSessionsApi } from "./scenarios/sdk-sessions.js";
import { runCompat } from "./runner.js";

runCompat("end users' sessions", sdkSessionsApi);
