import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { simpleParser } from "mailparser";

/**
 * The codes the compat app sent, read where the service puts them when SIGIL_SMTP_URL and SIGIL_SMS_API_URL
 * are unset (its dev mailbox and SMS outbox under the data directory), as a developer reads them.
 */
async function newestFirst(dir: string, ext: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  // File names start with the ISO time of writing.
  return names.filter((n) => n.endsWith(ext)).sort().reverse().map((n) => path.join(dir, n));
}

const sixDigits = (text: string) => /\b(\d{6})\b/.exec(text)?.[1];

export async function lastMailedCode(dataDir: string, to: string): Promise<string> {
  for (const file of await newestFirst(path.join(dataDir, "mailbox"), ".eml")) {
    const mail = await simpleParser(await readFile(file));
    const recipients = [mail.to ?? []].flat().flatMap((a) => a.value.map((v) => v.address));
    const code = recipients.includes(to) ? sixDigits(mail.text ?? "") : undefined;
    if (code) return code;
  }
  throw new Error(`no mail to ${to} in the dev mailbox`);
}

export async function lastTextedCode(dataDir: string, to: string): Promise<string> {
  for (const file of await newestFirst(path.join(dataDir, "sms-outbox"), ".json")) {
    const sms = JSON.parse(await readFile(file, "utf8")) as { to: string; body: string };
    const code = sms.to === to ? sixDigits(sms.body) : undefined;
    if (code) return code;
  }
  throw new Error(`no SMS to ${to} in the dev outbox`);
}

/** The text of the newest mail to `to` in the dev mailbox (for mails that carry more than a code). */
export async function lastMailedText(dataDir: string, to: string): Promise<string> {
  for (const file of await newestFirst(path.join(dataDir, "mailbox"), ".eml")) {
    const mail = await simpleParser(await readFile(file));
    if ([mail.to ?? []].flat().some((a) => a.value.some((v) => v.address === to))) return mail.text ?? "";
  }
  throw new Error(`no mail to ${to} in the dev mailbox`);
}
