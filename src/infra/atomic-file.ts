import { randomBytes } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";

/**
 * Writes a file readable by its owner only (0600), whole or not at all: a reader (another terminal's CLI)
 * or a crash never sees half of it. The content goes to a temporary file beside it, is synced, and renamed
 * over the target.
 */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  const tmp = `${file}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    const handle = await open(tmp, "wx", 0o600);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
