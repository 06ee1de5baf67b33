import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import nodemailer from "nodemailer";
import type { VerificationSettings } from "../config.js";
import type { Mailer } from "../domain/deps.js";
import type { Logger } from "../log.js";

/** Bounds of one SMTP conversation: a dead server fails the request within seconds, not minutes. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/**
 * Mail over SMTP to SIGIL_SMTP_URL (nodemailer: smtp:// upgrades with STARTTLS when the server offers it,
 * smtps:// is TLS from the start), or, unset, the dev mailbox: each mail is written whole (RFC 5322, as the
 * SMTP server would receive it) to <dataDir>/mailbox/<time>-<id>.eml, and a log line names the file. The
 * log never carries the mail's text (it holds a sign-in code).
 */
/** Where mails go while SIGIL_SMTP_URL is unset. */
export const devMailboxDir = (dataDir: string) => path.join(dataDir, "mailbox");

export function createMailer(settings: Pick<VerificationSettings, "smtpUrl" | "mailFrom">, dataDir: string, log: Logger): Mailer {
  const from = settings.mailFrom;
  if (settings.smtpUrl) {
    const transport = nodemailer.createTransport({ url: settings.smtpUrl, ...SMTP_TIMEOUTS });
    return {
      async send(mail) {
        await transport.sendMail({ from, ...mail });
      },
    };
  }
  const mailbox = devMailboxDir(dataDir);
  const render = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    async send(mail) {
      const info = await render.sendMail({ from, ...mail });
      await mkdir(mailbox, { recursive: true, mode: 0o700 });
      const file = path.join(mailbox, `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID()}.eml`);
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      log.info("mail written to the dev mailbox (SIGIL_SMTP_URL is unset)", { file, subject: mail.subject });
    },
  };
}
