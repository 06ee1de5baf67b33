import type { WebhookSettings } from "../../config.js";

/**
 * The retry schedule of a message: the delay before each attempt (ms), by environment kind. Live endpoints
 * get the long schedule (immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); sandbox a short one.
 */
export function deliverySchedule(settings: WebhookSettings, environmentName: string): number[] {
  return environmentName === "live" ? settings.schedule.live : settings.schedule.sandbox;
}

export function disableAfterFailingMs(settings: WebhookSettings, environmentName: string): number {
  return environmentName === "live" ? settings.disableAfterFailingMs.live : settings.disableAfterFailingMs.sandbox;
}

/**
 * Retry-After of a 429 / 503 (RFC 9110: delay-seconds or an HTTP date), in ms, capped; null when absent or
 * unreadable (then the schedule applies).
 */
export function retryAfterMs(header: string | null, capMs: number, now = Date.now()): number | null {
  if (!header) return null;
  const v = header.trim();
  let ms: number;
  if (/^\d+$/.test(v)) ms = Number(v) * 1000;
  else {
    const at = Date.parse(v);
    if (Number.isNaN(at)) return null;
    ms = at - now;
  }
  return Math.min(Math.max(ms, 0), capMs);
}

/** Pause before asking for a free endpoint slot again: short, growing, jittered by the caller. */
export function busyBackoffMs(busyCount: number): number {
  return Math.min(250 * 2 ** Math.min(busyCount, 6), 10_000);
}
