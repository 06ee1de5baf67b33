import type { Config } from "./config.js";
import { createSealer } from "./crypto/seal.js";
import type { Database } from "./db/db.js";
import type { Deps, Flows } from "./domain/deps.js";
import { silentObserver, type DomainObserver } from "./domain/observer.js";
import { Keyring } from "./domain/sessions/keyring.js";
import { SessionVerifier } from "./domain/sessions/tokens.js";
import { createLogger, type Logger } from "./log.js";
import { createMailer } from "./messaging/mail.js";
import { createSmsSender } from "./messaging/sms.js";
import { createCloudDrive } from "./adapters/cloud-drive.js";
import { createCustomerBackup } from "./adapters/customer-backup.js";
import { createSocialHub } from "./adapters/social-hub.js";
import { createChainNodes } from "./adapters/chain-nodes.js";
import { createExchangeApi } from "./adapters/exchange-api.js";
import { createVendors } from "./adapters/vendors.js";
import type { EphemeralStore } from "./store/store.js";

/** The connections a process opened (and closes); everything else in Deps is derived from the config. */
export interface DepsParts {
  config: Config;
  db: Database;
  store: EphemeralStore;
  flows: Flows;
  /** The process's logger; by default one at config.logLevel. */
  log?: Logger;
  /** Where the domain reports what /metrics counts (src/observability/metrics/); by default nowhere. */
  observer?: DomainObserver;
}

/**
 * The one place Deps is assembled, for the process (src/runtime.ts), the test app, the benches and the
 * scripts alike, so that a new dependency is added once and nobody runs with part of it.
 */
export function buildDeps(parts: DepsParts): Deps {
  const { config, db, store, flows } = parts;
  const sealer = createSealer(config.sealingKeys);
  const sessionKeys = new Keyring({ db, sealer });
  const log = parts.log ?? createLogger(config.logLevel, undefined, config.logFormat);
  return {
    config,
    db,
    store,
    flows,
    sealer,
    backupSealer: createSealer(config.backups.sealingKeys),
    log,
    observer: parts.observer ?? silentObserver,
    sessionKeys,
    sessionVerifier: new SessionVerifier(sessionKeys),
    mailer: createMailer(config.verifications, config.dataDir, log),
    sms: createSmsSender(config.verifications.smsApiUrl, config.dataDir, log),
    socialHub: config.externalSignIn.socialHubUrl ? createSocialHub(config.externalSignIn.socialHubUrl) : null,
    cloudDrive: createCloudDrive(config.backups.cloudDriveUrl),
    customerBackup: createCustomerBackup(config.webhooks),
    chainNodes: createChainNodes(config.chains, config.webhooks),
    exchangeApi: createExchangeApi(config.webhooks),
    vendors: createVendors(config.ramps, config.webhooks),
  };
}
