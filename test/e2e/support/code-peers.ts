import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";
import { waitFor } from "../../support/poll.js";

/** The six-digit code of a message's text (the only six-digit number the messages carry). */
export const codeIn = (text: string): string => {
  const m = /\b(\d{6})\b/.exec(text);
  if (!m) throw new Error(`no code in ${JSON.stringify(text)}`);
  return m[1]!;
};

export interface ReceivedMail {
  envelopeTo: string[];
  authUser: string | undefined;
  parsed: ParsedMail;
}

/**
 * A real SMTP server on loopback (smtp-server) requiring AUTH with the given credentials; received mails
 * are parsed with mailparser. `reject` makes it refuse every message (a failing peer).
 */
export async function startSmtpPeer(auth = { user: "sigil", pass: "smtp-secret" }) {
  const mails: ReceivedMail[] = [];
  const state = { reject: false };
  const server = new SMTPServer({
    // No TLS certificate in tests: plain SMTP with AUTH allowed over it (loopback only).
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(a, _session, cb) {
      if (a.username === auth.user && a.password === auth.pass) cb(null, { user: a.username });
      else cb(new Error("invalid credentials"));
    },
    onData(stream, session, cb) {
      if (state.reject) {
        stream.resume();
        stream.on("end", () => cb(Object.assign(new Error("mailbox unavailable"), { responseCode: 550 })));
        return;
      }
      simpleParser(stream)
        .then((parsed) => {
          mails.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), authUser: session.user as string | undefined, parsed });
          cb();
        })
        .catch(cb);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://${auth.user}:${auth.pass}@127.0.0.1:${port}`,
    mails,
    state,
    /** The newest mail to `to` beyond the first `after` ones to it. */
    mailTo: (to: string, after = 0) =>
      waitFor(`mail #${after + 1} to ${to}`, () => mails.filter((m) => m.envelopeTo.includes(to))[after], { timeoutMs: 5000, intervalMs: 20 }),
    countTo: (to: string) => mails.filter((m) => m.envelopeTo.includes(to)).length,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface ReceivedSms {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  form: Record<string, string>;
}

/** A real HTTP peer on loopback speaking the Messages API form (201 with a JSON message), or failing with 500. */
export async function startSmsPeer() {
  const received: ReceivedSms[] = [];
  const state = { fail: false };
  const server = createServer(async (req: IncomingMessage, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    received.push({
      method: req.method ?? "",
      path: req.url ?? "",
      authorization: req.headers.authorization,
      contentType: req.headers["content-type"],
      form: Object.fromEntries(new URLSearchParams(body)),
    });
    if (state.fail) {
      res.writeHead(500, { "content-type": "application/json" }).end('{"message":"down"}');
      return;
    }
    res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ sid: "SM123", status: "queued" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/2010-04-01`,
    received,
    state,
    smsTo: (to: string, after = 0) => waitFor(`SMS #${after + 1} to ${to}`, () => received.filter((r) => r.form.To === to)[after], { timeoutMs: 5000, intervalMs: 20 }),
    countTo: (to: string) => received.filter((r) => r.form.To === to).length,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
