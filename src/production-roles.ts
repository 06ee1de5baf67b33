/**
 * The production roles (`sigil start api`, `sigil start worker`) run as several processes, often on several
 * machines, that must share one database, one store, one workflow engine and one set of sealing keys. The
 * embedded defaults of the dev role would give each process its own: a second api replica with its own
 * generated sealing key could not open what the first one sealed, and an in-process store would let each
 * replica count rate limits and nonces on its own. So these roles refuse to start without them, naming
 * every missing setting at once.
 */
export const PRODUCTION_REQUIRED: { name: string; why: string }[] = [
  { name: "DATABASE_URL", why: "every process must use the same Postgres" },
  { name: "REDIS_URL", why: "rate limits, nonces and caches must be shared between processes" },
  { name: "TEMPORAL_ADDRESS", why: "api and worker must reach the same Temporal cluster" },
  { name: "SIGIL_SEALING_KEYS", why: "a key generated per process could not open what another process sealed" },
  { name: "SIGIL_BACKUP_SEALING_KEYS", why: "as SIGIL_SEALING_KEYS, for the backups the service keeps" },
];

export function missingProductionSettings(env: NodeJS.ProcessEnv): string[] {
  return PRODUCTION_REQUIRED.filter(({ name }) => !env[name]).map(({ name, why }) => `${name} (${why})`);
}
