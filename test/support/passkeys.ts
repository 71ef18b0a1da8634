// Passkeys in the browser suites: Chromium's virtual authenticator (the DevTools Protocol's
// WebAuthn domain) on a page — a platform authenticator with resident keys and user verification,
// as a phone or laptop has — and the JSON ceremony calls a page's script makes, for replaying them;
// and, without a browser, the same ceremonies over HTTP with a SoftAuthenticator.
import type { BrowserContext, Page } from "playwright-core";
import { http, type TestResponse } from "./http.js";
import { csrfOf, PageClient } from "./pages.js";
import type { AssertOptions, SoftAuthenticator } from "./soft-authenticator.js";

export interface VirtualAuthenticator {
  id: string;
  credentials(): Promise<Array<{ credentialId: string; rpId: string; signCount: number }>>;
}

/** Adds a CTAP2 internal authenticator (resident keys, user verification, user verified) to the page. */
export async function addVirtualAuthenticator(
  context: BrowserContext,
  page: Page,
  opts: { backupEligible?: boolean } = {},
): Promise<VirtualAuthenticator> {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
      ...(opts.backupEligible ? { defaultBackupEligibility: true, defaultBackupState: true } : {}),
    },
  });
  return {
    id: authenticatorId,
    async credentials() {
      const r = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
      return r.credentials.map((c) => ({ credentialId: c.credentialId, rpId: c.rpId ?? "", signCount: c.signCount }));
    },
  };
}

/**
 * Turns passkey autofill off on the page (as in a browser without conditional mediation): Chromium's
 * virtual authenticator answers a conditional request at once, which would sign in before a button
 * is clicked.
 */
export async function withoutAutofill(page: Page): Promise<void> {
  // A string, not a function: tsx would wrap a function in helpers the page does not have.
  await page.addInitScript(
    'Object.defineProperty(PublicKeyCredential, "isConditionalMediationAvailable", { value: () => Promise.resolve(false) });',
  );
}

/** What the page's script posts to a ceremony endpoint, caught before it leaves (the request is aborted). */
export async function catchCeremony(
  page: Page,
  path: string,
  act: () => Promise<unknown>,
): Promise<{ body: string; csrf: string }> {
  let resolve!: (v: { body: string; csrf: string }) => void;
  const caught = new Promise<{ body: string; csrf: string }>((r) => (resolve = r));
  await page.route(`**${path}`, async (route) => {
    resolve({
      body: route.request().postData() ?? "",
      csrf: (await route.request().allHeaders())["x-csrf-token"] ?? "",
    });
    await route.abort();
  });
  await act();
  const v = await caught;
  await page.unroute(`**${path}`);
  return v;
}

/** Posts a caught ceremony body as the browser would (its cookies, its CSRF token). */
export async function replay(
  base: string,
  context: BrowserContext,
  path: string,
  caught: { body: string; csrf: string },
): Promise<TestResponse> {
  const cookies = (await context.cookies(base)).map((c) => `${c.name}=${c.value}`).join("; ");
  return http(base, path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": caught.csrf, cookie: cookies },
    body: caught.body,
  });
}

/** A node whose AUTH_URL host is a name (localhost), so passkeys are offered; its port is the real one. */
export const PASSKEY_ENV = { BASE_URL: "http://localhost:0" };

export async function signUpIn(page: Page, base: string, username: string): Promise<void> {
  await page.goto(`${base}/signup`);
  await page.fill('input[name="username"]', username);
  await page.fill('input[name="password"]', "correct horse battery");
  await Promise.all([page.waitForURL(`${base}/account`), page.click('button[type="submit"]')]);
}

/** "Confirm it's you" with the password in the browser, then back on /account. */
export async function confirmInBrowser(page: Page, password = "correct horse battery"): Promise<void> {
  const base = new URL(page.url()).origin;
  await page.goto(`${base}/confirm?return_to=%2Faccount`);
  await page.fill('form[action^="/confirm"] input[name="password"]', password);
  await Promise.all([page.waitForURL(`${base}/account`), page.click('form[action^="/confirm"] button[type="submit"]')]);
}

/** Adds a passkey on /account (after "Confirm it's you" with the password). */
export async function addPasskey(page: Page, name: string): Promise<void> {
  await confirmInBrowser(page);
  await page.waitForSelector("#passkey-add:not([hidden])");
  await page.fill("#passkey-new-name", name);
  await Promise.all([page.waitForEvent("load"), page.click('#passkey-add button[type="submit"]')]);
  await page.waitForSelector(`.passkey-name:text-is("${name}")`);
}

export async function signOut(page: Page, base: string): Promise<void> {
  await Promise.all([page.waitForURL(`${base}/signin`), page.click('form[action="/signout"] button')]);
}

// ---- Without a browser: the ceremonies over HTTP with a SoftAuthenticator ----------------------

/** A JSON POST as the pages' script sends it: cookies, the page's CSRF token, and the address (X-Forwarded-For, on a TRUST_PROXY node). */
export function postCeremony(
  base: string,
  path: string,
  body: unknown,
  opts: { csrf?: string; cookie?: string; address?: string } = {},
): Promise<TestResponse> {
  return http(base, path, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(opts.cookie ? { cookie: opts.cookie } : {}),
      ...(opts.csrf ? { "x-csrf-token": opts.csrf } : {}),
      ...(opts.address ? { "x-forwarded-for": opts.address } : {}),
    },
    body: JSON.stringify(body),
  });
}

const cookieOf = (c: PageClient) => [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; ");

/**
 * The signed-in user of `c` adds a passkey made by `authenticator` (the /account ceremony), after
 * "Confirm it's you" with `password`; its id.
 */
export async function addSoftPasskey(
  c: PageClient,
  authenticator: SoftAuthenticator,
  name = "Laptop",
  password = "correct horse battery",
): Promise<string> {
  await c.confirm(password);
  const csrf = csrfOf((await c.get("/account")).text);
  const options = await postCeremony(c.base, "/account/passkeys/options", {}, { csrf, cookie: cookieOf(c) });
  if (options.status !== 200) throw new Error(`passkey options: ${options.status} ${options.text}`);
  const response = authenticator.register(options.json);
  const added = await postCeremony(c.base, "/account/passkeys", { name, response }, { csrf, cookie: cookieOf(c) });
  if (added.status !== 201) throw new Error(`add passkey: ${added.status} ${added.text}`);
  return added.json.passkey.id as string;
}

/** A browser at `address` that has loaded /signin: its cookies and CSRF token, for the sign-in ceremony. */
export async function signInPage(
  base: string,
  address: string,
): Promise<{ csrf: string; cookie: string; address: string }> {
  const c = new PageClient(base);
  const page = await c.get("/signin", { "x-forwarded-for": address });
  return { csrf: csrfOf(page.text), cookie: cookieOf(c), address };
}

/**
 * The cookies of `cookie` (a Cookie header) with those a response sets added or replaced: what a
 * browser sends next.
 */
export function withSetCookies(cookie: string, r: TestResponse): string {
  const jar = new Map<string, string>();
  for (const pair of cookie.split("; ").filter(Boolean)) {
    const i = pair.indexOf("=");
    jar.set(pair.slice(0, i), pair.slice(i + 1));
  }
  const set = r.headers["set-cookie"];
  for (const c of Array.isArray(set) ? set : set ? [set] : []) {
    const [pair = ""] = c.split(";");
    const i = pair.indexOf("=");
    jar.set(pair.slice(0, i), pair.slice(i + 1));
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
}

/**
 * Begins a sign-in ceremony (POST /signin/passkey/options) as `from`; the request options. `from`
 * keeps the cookie the answer sets (the challenge is bound to it), as a browser would.
 */
export async function signInOptions(base: string, from: { csrf: string; cookie: string; address: string }) {
  const r = await postCeremony(base, "/signin/passkey/options", {}, from);
  if (r.status !== 200) throw new Error(`sign-in options: ${r.status} ${r.text}`);
  from.cookie = withSetCookies(from.cookie, r);
  return r.json as { challenge: string };
}

/**
 * One whole passkey sign-in from `address`, as the page's script does it: load /signin, ask for
 * options, answer them (spoilt as asked), post the answer. The last response.
 */
export async function passkeySignIn(
  base: string,
  authenticator: SoftAuthenticator,
  address: string,
  spoil: AssertOptions = {},
): Promise<TestResponse> {
  const from = await signInPage(base, address);
  const options = await signInOptions(base, from);
  return postCeremony(base, "/signin/passkey", { response: authenticator.assert(options, spoil) }, from);
}
