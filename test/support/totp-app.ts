import { Secret, TOTP } from "otpauth";

const PERIOD_MS = 30_000;

/**
 * The authenticator app of a test user: makes the codes of one TOTP secret as a phone app would, and
 * remembers the last time step it handed out, so that each code it gives is one the server has not
 * accepted yet (the server accepts a step once, within one step of now).
 */
export class AuthenticatorApp {
  private last = -Infinity;
  constructor(readonly secret: string) {}

  static step(now = Date.now()): number {
    return Math.floor(now / PERIOD_MS);
  }

  /** The code of a time step. */
  codeAt(step: number): string {
    return TOTP.generate({ secret: Secret.fromBase32(this.secret), timestamp: step * PERIOD_MS + 1, algorithm: "SHA1", digits: 6, period: 30 });
  }

  /** A code of a step the server still accepts (now, else the next one); fails when both were handed out. */
  next(): string {
    const now = AuthenticatorApp.step();
    const step = Math.max(now, this.last + 1);
    if (step > now + 1) throw new Error("the app has no fresh code until the next 30-second step");
    this.last = step;
    return this.codeAt(step);
  }

  /** The code handed out last (a replay). */
  lastCode(): string {
    return this.codeAt(this.last);
  }

  /** Marks a step as spent elsewhere (e.g. the enrolment's code). */
  spent(code: string): void {
    const now = AuthenticatorApp.step();
    for (const s of [now - 1, now, now + 1]) if (this.codeAt(s) === code) this.last = Math.max(this.last, s);
  }
}
