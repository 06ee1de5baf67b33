import { EventsApi } from "@dynamic-labs/sdk-api";
import type { Scenarios } from "../harness.js";

/** EventsApi: one scenario per operation, keyed `EventsApi.<operation>`, run in this order. */
export const eventsApi: Scenarios = {
  "EventsApi.getEventTypes": ({ api }) => api(EventsApi).getEventTypes(),
  "EventsApi.getEvents": async ({ api, rest, tenant, state }) => {
    // A change the service makes is an event (user.created).
    await rest("POST", `/environments/${tenant.environmentId}/users`, { email: `events-${Date.now()}@example.com` });
    const page = await api(EventsApi).getEvents({ environmentId: tenant.environmentId, resourceType: "user" });
    state.eventId = page.data?.[0]?.eventId;
  },
  "EventsApi.getEventById": ({ api, tenant, state }) => api(EventsApi).getEventById({ environmentId: tenant.environmentId, eventId: state.eventId }),
};
