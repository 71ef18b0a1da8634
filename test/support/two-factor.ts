// Two-factor through the pages, as a browser without JavaScript turns it on; the codes are
// computed here with the same library (otpauth) from the secret the setup page shows.
import { expect } from "chai";
import * as OTPAuth from "otpauth";
import { csrfOf, decodeHtml, type PageClient } from "./pages.js";

/** The code the user's app shows `offsetSeconds` from now. */
export function codeAt(secret: string, offsetSeconds = 0): string {
  const totp = new OTPAuth.TOTP({
    secret: OTPAuth.Secret.fromBase32(secret),
    digits: 6,
    period: 30,
    algorithm: "SHA1",
  });
  return totp.generate({ timestamp: Date.now() + offsetSeconds * 1000 });
}

export interface Enrolled {
  secret: string;
  recovery: string[];
}

/**
 * Sets two-factor up on /account (the person is signed in): "Confirm it's you" with `password`
 * first, then the setup; the secret shown, and the recovery codes.
 */
export async function enroll(c: PageClient, password = "correct horse battery"): Promise<Enrolled> {
  await c.confirm(password);
  const setup = await c.submit("/account", "/account/2fa/setup", {});
  expect(setup.status, setup.text.slice(0, 300)).to.equal(200);
  const shown = /class="secret totp-secret">([^<]+)</.exec(setup.text)![1]!;
  const secret = shown.replace(/\s/g, "");
  expect(shown).to.match(/^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/);
  expect(setup.text).to.match(/<svg[^>]*role="img"[^>]*>/);
  const pending = decodeHtml(/name="pending" value="([^"]+)"/.exec(setup.text)![1]!);
  const done = await c.post("/account/2fa/confirm", { _csrf: csrfOf(setup.text), pending, code: codeAt(secret) });
  expect(done.status, done.text.slice(0, 300)).to.equal(200);
  const recovery = [...done.text.matchAll(/class="secret recovery-code">([^<]+)</g)].map((m) => m[1]!);
  expect(recovery).to.have.length(10);
  expect(new Set(recovery).size).to.equal(10);
  return { secret, recovery };
}
