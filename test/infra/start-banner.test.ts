import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { runStateOf, startBanner } from "../../src/start-banner.js";

/** The start-up banner names where everything is, and never a credential of the configured servers. */

const key = () => `k1:${randomBytes(32).toString("base64")}`;
const external = loadConfig({
  SIGIL_DATA_DIR: "/srv/sigil-data",
  SIGIL_SEALING_KEYS: key(),
  SIGIL_BACKUP_SEALING_KEYS: key(),
  DATABASE_URL: "postgres://sigil:db-secret@db.internal:6543/sigil_prod",
  REDIS_URL: "redis://:redis-secret@cache.internal:6380",
  TEMPORAL_ADDRESS: "temporal.internal:7233",
  SIGIL_SMTP_URL: "smtp://mailer:smtp-secret@smtp.example.com:2525",
  SIGIL_SMS_API_URL: "https://sms-user:sms-secret@sms.example.com/2010-04-01?token=query-secret",
  PORT: "9090",
});

describe("the start-up banner", () => {
  it("names the configured servers by host and port only", () => {
    const lines = startBanner(external, { port: 9090, databaseUrl: external.databaseUrl!, temporalAddress: "temporal.internal:7233", temporalUiUrl: undefined }, "api");
    const text = lines.join("\n");
    expect(lines).toEqual(
      expect.arrayContaining([
        "Data dir:     /srv/sigil-data",
        "Postgres:     db.internal:6543, database sigil_prod (DATABASE_URL)",
        "Temporal:     temporal.internal:7233, namespace default (TEMPORAL_ADDRESS)",
        "Store:        Redis cache.internal:6380 (REDIS_URL)",
        "Mail:         SMTP smtp.example.com:2525 (SIGIL_SMTP_URL)",
        "SMS:          gateway https://sms.example.com (SIGIL_SMS_API_URL)",
      ]),
    );
    for (const secret of ["db-secret", "redis-secret", "smtp-secret", "sms-secret", "query-secret", "mailer", "sms-user"]) expect(text).not.toContain(secret);
    // Not dev: no run.json, no bootstrap hint.
    expect(text).not.toContain("run.json");
    expect(text).not.toContain("bootstrap");
    expect(text).not.toContain("/demo/");
  });

  it("in dev, points at the demo page on the API's port", () => {
    const lines = startBanner(external, { port: 9090, databaseUrl: external.databaseUrl!, temporalAddress: "temporal.internal:7233", temporalUiUrl: undefined }, "dev");
    expect(lines.find((l) => l.startsWith("Demo app:"))).toMatch(/^Demo app: +http:\/\/localhost:9090\/demo\/\?environmentId=/);
  });

  it("points at the API reference and its OpenAPI document wherever the API listens", () => {
    for (const mode of ["dev", "api"] as const) {
      const lines = startBanner(external, { port: 9090, databaseUrl: external.databaseUrl!, temporalAddress: "temporal.internal:7233", temporalUiUrl: undefined }, mode);
      expect(lines.find((l) => l.startsWith("API docs:"))).toBe("API docs:     http://localhost:9090/docs  (the OpenAPI document: /openapi.json)");
    }
  });

  it("run.json of a service listening on every interface names a loopback address", () => {
    const wildcard = loadConfig({ SIGIL_DATA_DIR: "/srv/sigil-data", SIGIL_SEALING_KEYS: key(), SIGIL_BACKUP_SEALING_KEYS: key(), HOST: "0.0.0.0" });
    const state = runStateOf(wildcard, { port: 8080, databaseUrl: "postgres://postgres:pw@127.0.0.1:54329/sigil", temporalAddress: "127.0.0.1:7233", temporalUiUrl: undefined }, new Date(0));
    expect(state).toMatchObject({ baseUrl: "http://127.0.0.1:8080", apiUrl: "http://127.0.0.1:8080/api/v0", grpcAddress: "127.0.0.1:8080" });
    const v6 = loadConfig({ SIGIL_DATA_DIR: "/srv/sigil-data", SIGIL_SEALING_KEYS: key(), SIGIL_BACKUP_SEALING_KEYS: key(), HOST: "::" });
    expect(runStateOf(v6, { port: 8080, databaseUrl: "postgres://127.0.0.1/sigil", temporalAddress: "x:1", temporalUiUrl: undefined }, new Date(0)).grpcAddress).toBe("[::1]:8080");
  });
});
