/** Subscribing to this alone means every event of the catalogue, including kinds added to it afterwards. */
export const ALL_EVENTS = "*";

/** Whether a webhook with these subscriptions (webhooks.event_names) gets events of this name. */
export function subscribes(eventNames: readonly string[], eventName: string): boolean {
  return eventNames.includes(ALL_EVENTS) || eventNames.includes(eventName);
}
