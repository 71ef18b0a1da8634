// A cookie-keeping client for the HTML pages (as a browser without JavaScript would use them),
// and shorthands for the OAuth flow: register an app, authorize, trade the code, read the user.
import { createHash, randomBytes } from "node:crypto";
import { http, type TestResponse } from "./http.js";

export class PageClient {
  readonly cookies = new Map<string, string>();
  /** localAddress: another loopback address to send from (127.0.0.2), so per-address limits start afresh. */
  constructor(
    readonly base: string,
    readonly localAddress?: string,
  ) {}

  private from(): { localAddress?: string } {
    return this.localAddress ? { localAddress: this.localAddress } : {};
  }

  private keep(r: TestResponse): TestResponse {
    const set = r.headers["set-cookie"];
    for (const c of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair = ""] = c.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i);
      const value = pair.slice(i + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(c) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return r;
  }

  /** The Cookie header this client sends (for a request made some other way). */
  cookieHeader(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") } : {};
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<TestResponse> {
    return this.keep(await http(this.base, path, { headers: { ...this.cookieHeader(), ...headers }, ...this.from() }));
  }

  async post(
    path: string,
    fields: Record<string, string | string[]>,
    headers: Record<string, string> = {},
  ): Promise<TestResponse> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
    return this.keep(
      await http(this.base, path, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...this.cookieHeader(), ...headers },
        body: body.toString(),
        ...this.from(),
      }),
    );
  }

  async postRaw(path: string, body: Buffer, contentType: string): Promise<TestResponse> {
    return this.keep(
      await http(this.base, path, {
        method: "POST",
        headers: { "content-type": contentType, ...this.cookieHeader() },
        body,
        ...this.from(),
      }),
    );
  }

  /** Loads `pagePath`, then posts its form to `action` with the page's CSRF token. */
  async submit(pagePath: string, action: string, fields: Record<string, string | string[]>): Promise<TestResponse> {
    const page = await this.get(pagePath);
    return this.post(action, { _csrf: csrfOf(page.text), ...fields });
  }

  /**
   * "Confirm it's you" with the password (POST /confirm), as the sensitive forms need first; the
   * answer (303 back to return_to when right).
   */
  async confirm(password = "correct horse battery", returnTo = "/account"): Promise<TestResponse> {
    const path = `/confirm?${new URLSearchParams({ return_to: returnTo })}`;
    const r = await this.submit(path, path, { password });
    if (r.status !== 303) throw new Error(`confirm: expected 303, got ${r.status} ${r.text.slice(0, 300)}`);
    return r;
  }

  signUp(username: string, password = "correct horse battery", displayName?: string): Promise<TestResponse> {
    return this.submit("/signup", "/signup", {
      username,
      password,
      ...(displayName !== undefined ? { display_name: displayName } : {}),
    });
  }
}

/** What person() needs of a node (a TestNode has it). */
interface NodeWithAccounts {
  url: string;
  server: {
    services: {
      accounts: {
        byUsername(u: string): Promise<{ id: string } | null>;
        setAdmin(id: string, on: boolean): Promise<unknown>;
      };
    };
  };
}

/**
 * Someone with an account on `node`, signed in in a PageClient of their own: signed up as
 * `username` (the password "correct horse battery" unless given; their name the username in
 * capitals), an admin when `admin`. Fails naming the answer when the sign-up is refused.
 */
export async function person(
  node: NodeWithAccounts,
  username: string,
  opts: { admin?: boolean; password?: string } = {},
): Promise<{ c: PageClient; id: string }> {
  const c = new PageClient(node.url);
  const r = await c.signUp(username, opts.password ?? "correct horse battery", username.toUpperCase());
  if (r.status !== 303) throw new Error(`sign-up of ${username} answered ${r.status}: ${r.text.slice(0, 300)}`);
  const user = await node.server.services.accounts.byUsername(username);
  if (!user) throw new Error(`${username} signed up but is not in the store`);
  if (opts.admin) await node.server.services.accounts.setAdmin(user.id, true);
  return { c, id: user.id };
}

export function csrfOf(html: string): string {
  return capture(/name="_csrf" value="([^"]+)"/, html, "a CSRF token");
}

/** The first group of `re` in a page, or an error that names what is missing and shows the page. */
export function capture(re: RegExp, html: string, what: string): string {
  const value = re.exec(html)?.[1];
  if (value === undefined) throw new Error(`no ${what} in page: ${html.slice(0, 300)}`);
  return value;
}

export interface TestApp {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/** Signs up a developer (on `dev`) and registers an app; returns its credentials. */
export async function registerApp(
  dev: PageClient,
  redirectUris: string[] = ["https://app.example/callback"],
  name = "Test App",
): Promise<TestApp> {
  const r = await dev.submit("/developers", "/developers", { name, redirect_uri: redirectUris.join("\n") });
  if (r.status !== 201) throw new Error(`register failed: ${r.status} ${r.text.slice(0, 500)}`);
  const clientId = capture(/class="client-id">([^<]+)</, r.text, "client id");
  const clientSecret = capture(/class="secret client-secret">([^<]+)</, r.text, "client secret");
  return { clientId, clientSecret, redirectUri: redirectUris[0]! }; // 201: so there was one
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** A signed-in user goes through /authorize (allowing when asked); returns the redirect URL. */
export async function authorize(user: PageClient, params: Record<string, string>, decision = "allow"): Promise<URL> {
  const path = `/authorize?${new URLSearchParams(params)}`;
  let r = await user.get(path);
  if (r.status === 200) {
    const hidden: Record<string, string> = {};
    for (const [, name = "", value = ""] of r.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
      hidden[name] = decodeHtml(value);
    r = await user.post("/authorize", { ...hidden, decision });
  }
  if (r.status !== 303) throw new Error(`authorize: expected 303, got ${r.status} ${r.text.slice(0, 300)}`);
  return new URL(r.headers.location as string);
}

export function decodeHtml(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");
}

/** POST /token with a form body. */
export function token(
  base: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return http(base, "/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

export function userInfo(base: string, accessToken: string, clientId: string): Promise<TestResponse> {
  return http(base, "/auth/user", { headers: { authorization: `Bearer ${accessToken}`, client_id: clientId } });
}

export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;

/** A multipart/form-data body: the fields in order, then the file when given. */
export function multipart(
  fields: Record<string, string>,
  file?: { name: string; filename: string; type: string; data: Buffer },
  boundary = "----sigiltest" + Math.random().toString(16).slice(2),
) {
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: ${file.type}\r\n\r\n`,
      ),
    );
    parts.push(file.data, Buffer.from("\r\n"));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

/** Signs in (as a browser with this User-Agent would). */
export async function signInAs(c: PageClient, username: string, password: string, ua: string): Promise<void> {
  const page = await c.get("/signin", { "user-agent": ua });
  const r = await c.post("/signin", { _csrf: csrfOf(page.text), username, password }, { "user-agent": ua });
  if (r.status !== 303) throw new Error(`sign-in failed: ${r.status} ${r.text.slice(0, 300)}`);
}

/** The session id inside a jar's signed session cookie ("s:<sid>.<signature>"). */
export function sidOf(c: PageClient): string {
  const v = decodeURIComponent(c.cookies.get("sigil.sid") ?? "");
  return /^s:([^.]+)\./.exec(v)![1]!;
}
