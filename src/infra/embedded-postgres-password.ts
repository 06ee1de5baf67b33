import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { rename } from "node:fs/promises";
import path from "node:path";
import { closeDatabase, connectDatabase } from "../db/db.js";
import { writeFileAtomic } from "./atomic-file.js";

/**
 * The embedded Postgres's password, one per data dir, kept in <dataDir>/postgres.password (0600). A fixed
 * password shared by every data dir let a client pointed at the wrong port (another checkout's or another
 * run's instance) sign in there and write a tenant into that instance's database; with a password of its
 * own, each instance refuses every other's clients.
 */

/** The password every embedded cluster was initialised with before each data dir had its own. */
const LEGACY_PASSWORD = "sigil-embedded";

const passwordPath = (dataDir: string) => path.join(path.resolve(dataDir), "postgres.password");
/** The next password, written before the role is altered, renamed into place after. */
const pendingPath = (dataDir: string) => `${passwordPath(dataDir)}.pending`;

const newPassword = () => randomBytes(24).toString("base64url");

function readPassword(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  return readFileSync(file, "utf8").trim() || undefined;
}

/** The data dir's stored password, or undefined when its cluster predates stored passwords. */
export function storedPassword(dataDir: string): string | undefined {
  return readPassword(passwordPath(dataDir));
}

/** A new cluster's password, stored before initdb so that the cluster never exists without it. */
export async function newClusterPassword(dataDir: string): Promise<string> {
  const password = newPassword();
  await writeFileAtomic(passwordPath(dataDir), `${password}\n`);
  return password;
}

/** What the constructor of a cluster whose password is not stored yet should be told. */
export const passwordBeforeAdoption = LEGACY_PASSWORD;

/** Whether the URL's credentials are accepted: false on a wrong password (28P01), any other error thrown. */
export async function authenticates(url: string): Promise<boolean> {
  const db = connectDatabase(url, { max: 1 });
  try {
    await db.one("SELECT 1");
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === "28P01") return false; // invalid_password
    throw err;
  } finally {
    await closeDatabase(db);
  }
}

/**
 * A running cluster of a data dir that has no stored password: made by an older Sigil with the fixed
 * password (or a move below was cut off). It gets a password of its own, without ever losing the one that
 * works: the next password is written to a pending file first, the role altered, the file renamed into
 * place. A start that finds the pending file tries it first (the role may already have it).
 */
export async function adoptOwnPassword(dataDir: string, urlWith: (password: string) => string, log: (line: string) => void): Promise<string> {
  const pending = readPassword(pendingPath(dataDir));
  if (pending && (await authenticates(urlWith(pending)))) {
    await rename(pendingPath(dataDir), passwordPath(dataDir));
    return pending;
  }
  if (!(await authenticates(urlWith(LEGACY_PASSWORD)))) {
    throw new Error(
      `the embedded Postgres of ${path.resolve(dataDir)} refuses its passwords: ${passwordPath(dataDir)} is missing ` +
        "and the cluster was not made with the former fixed one. Restore that file, or move the data dir aside to start afresh.",
    );
  }
  const next = newPassword();
  await writeFileAtomic(pendingPath(dataDir), `${next}\n`);
  const db = connectDatabase(urlWith(LEGACY_PASSWORD), { max: 1 });
  try {
    // pg-promise formats the literal client-side (ALTER ROLE takes no bind parameters).
    await db.none("ALTER ROLE postgres PASSWORD $1", [next]);
  } finally {
    await closeDatabase(db);
  }
  await rename(pendingPath(dataDir), passwordPath(dataDir));
  log(`the embedded Postgres now has a password of its own, kept in ${passwordPath(dataDir)}`);
  return next;
}
