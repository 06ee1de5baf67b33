import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEALED_COLUMNS, sealedColumnName } from "../../../src/domain/sealing/registry.js";
import { startTestApp, type TestApp } from "../../support/app.js";
import { newKey, openEverySealedValue, sealersOf, sealedColumnsOutsideRegistry, seedSealedValues } from "../../support/sealed-values.js";

/**
 * The registry of sealed columns (src/domain/sealing/registry.ts) is what `sigil keys reseal` goes through:
 * a sealed column it lacks keeps an old key in use forever. Checked here against the schema, and against
 * the data of every test app when it stops (test/support/app.ts scans for values of the sealed shape).
 */

const key = newKey("k1");
const backup = newKey("b1");
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ sealingKeys: [key], backups: { sealingKeys: [backup], cloudDriveUrl: "http://127.0.0.1:9" } });
  await seedSealedValues(app.deps, app.deps.sealer, await app.bootstrap(), 1);
}, 120_000);
afterAll(() => app?.stop());

describe("the registry of sealed columns", () => {
  it("lists every *_sealed column of the schema, and only existing columns, each row named by its table's primary key", async () => {
    const sealedInSchema = await app.db.any<{ name: string }>(
      `SELECT table_name || '.' || column_name AS name FROM information_schema.columns
        WHERE table_schema = 'public' AND column_name LIKE '%\\_sealed' ORDER BY 1`,
    );
    // verified_credentials' two columns: written by the user import, read by GetOauthAccessToken.
    expect(SEALED_COLUMNS.map(sealedColumnName).sort()).toEqual(sealedInSchema.map((r) => r.name));
    for (const c of SEALED_COLUMNS) {
      const pk = await app.db.any<{ attname: string }>(
        `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
          WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)`,
        [c.table],
      );
      expect(c.key.map((k) => k.name), sealedColumnName(c)).toEqual(pk.map((r) => r.attname));
      const columns = await app.db.any<{ column_name: string }>("SELECT column_name FROM information_schema.columns WHERE table_name = $1", [c.table]);
      for (const read of c.reads) expect(columns.map((r) => r.column_name), `${sealedColumnName(c)} reads ${read}`).toContain(read);
    }
  });

  it("computes each value's associated data as the code that sealed it did: every seeded value opens", async () => {
    const counts = await openEverySealedValue(app.db, sealersOf([key], [backup]));
    expect(Object.keys(counts).sort()).toEqual(["environment_signing_keys.private_key_sealed", "test_accounts.otp_code_sealed", "webhooks.secret_sealed"]);
  });

  it("the scan of stored data finds a sealed column the registry lacks, and a sealed value copied into a document", async () => {
    expect(await sealedColumnsOutsideRegistry(app.db)).toEqual([]);
    const withoutWebhooks = SEALED_COLUMNS.filter((c) => sealedColumnName(c) !== "webhooks.secret_sealed");
    expect(await sealedColumnsOutsideRegistry(app.db, withoutWebhooks)).toEqual(["webhooks.secret_sealed"]);
    const { secret_sealed: sealed } = await app.db.one("SELECT secret_sealed FROM webhooks LIMIT 1");
    const [audit] = await app.db.any("SELECT id FROM audit_log LIMIT 1");
    await app.db.none("UPDATE audit_log SET changes = changes || jsonb_build_object('after', jsonb_build_object('copied', $2::text)) WHERE id = $1", [audit.id, sealed]);
    expect(await sealedColumnsOutsideRegistry(app.db)).toEqual(["audit_log.changes"]);
    await app.db.none("UPDATE audit_log SET changes = changes - 'after' WHERE id = $1", [audit.id]);
  });
});
