import { existsSync } from "node:fs";
import puppeteer, { type Browser } from "puppeteer-core";

/** Debian's Chromium (.ci/run installs it), or the browser CHROMIUM_PATH names. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Headless Chromium for the browser tests, driven by puppeteer-core. Without the browser the test fails
 * saying how to install it: a browser test never skips.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`the browser tests need Chromium at ${CHROMIUM}: install Debian's package (apt-get install chromium; .ci/run does) or set CHROMIUM_PATH`);
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Chromium's sandbox refuses to run as root (CI runs as root).
    args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
  });
}
