/**
 * One benchmark tenant with `users` users seeded by SQL (an e-mail credential each, a wallet for every
 * tenth), analysed, and removed again at the end.
 */
import { closeDatabase, connectDatabase } from "../../src/db/db.js";
import { migrate } from "../../src/db/migrate.js";
import { bootstrapTenant } from "../../src/domain/tenancy/bootstrap.js";
import { benchServers } from "./env.js";

export type BenchDb = ReturnType<typeof connectDatabase>;

export interface Seeded {
  db: BenchDb;
  environmentId: string;
  token: string;
  /** A user of the environment, for the GET cases. */
  userId: string;
  remove(): Promise<void>;
}

export async function seedTenant(users: number): Promise<Seeded> {
  const db = connectDatabase(benchServers().databaseUrl);
  await migrate(db);
  const tenant = await bootstrapTenant(db);
  const env = tenant.environmentId;
  console.log(`seeding ${users} users in environment ${env} ...`);
  const started = Date.now();
  await db.tx(async (t) => {
    await t.none(
      `INSERT INTO users (id, environment_id, email, first_name, last_name, username, external_user_id, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'user' || g || '@bench.example.com', 'First' || (g % 1000), 'Last' || (g % 997), 'user_' || g,
              'ext-' || g, now() - make_interval(secs => $2 - g), now() - make_interval(secs => $2 - g)
       FROM generate_series(1, $2) g`,
      [env, users],
    );
    await t.none(
      `INSERT INTO verified_credentials (id, environment_id, user_id, format, email, verified_at, created_at)
       SELECT gen_random_uuid(), u.environment_id, u.id, 'email', u.email, u.created_at, u.created_at FROM users u WHERE u.environment_id = $1`,
      [env],
    );
    await t.none(
      `INSERT INTO wallets (id, environment_id, user_id, credential_id, name, chain, address, provider, created_at)
       SELECT gen_random_uuid(), u.environment_id, u.id, gen_random_uuid(), 'bench', 'EVM',
              '0x' || substr(md5(u.id::text) || md5(u.email), 1, 40), 'browserExtension', u.created_at
       FROM users u WHERE u.environment_id = $1 AND u.username ~ '0$'`,
      [env],
    );
  });
  for (const table of ["users", "verified_credentials", "wallets"]) await db.none(`VACUUM ANALYZE ${table}`);
  console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // user_10 has a wallet: the GET cases read a user with two credentials.
  const { id: userId } = await db.one<{ id: string }>("SELECT id FROM users WHERE environment_id = $1 AND username = 'user_10'", [env]);
  return {
    db,
    environmentId: env,
    token: tenant.token,
    userId,
    async remove() {
      // The large child tables are emptied by environment first: their user_id foreign keys have no index led
      // by user_id, so cascading 100,000 user deletions into full child tables would take a scan per user.
      console.log("removing the seeded tenant ...");
      for (const table of ["verified_credentials", "wallet_additional_addresses", "wallets", "sessions", "custom_field_values", "audit_log"])
        await db.none(`DELETE FROM ${table} WHERE environment_id = $1`, [env]);
      await db.none("DELETE FROM organizations WHERE id = $1", [tenant.organizationId]);
      await closeDatabase(db);
    },
  };
}
