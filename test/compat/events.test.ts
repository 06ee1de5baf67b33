import { eventsApi } from "./scenarios/events.js";
import { webhooksApi } from "./scenarios/webhooks.js";
import { sDKApi } from "./scenarios/sdk.js";
import { runCompat } from "./runner.js";

runCompat("events", { ...eventsApi, ...webhooksApi, ...sDKApi });
