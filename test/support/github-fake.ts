// A stand-in for GitHub's OAuth 2.0 and user API, as GitHub documents them, for the tests of kind
// `github`: /login/oauth/authorize (the person is `who`, and says yes at once), /login/oauth/
// access_token (the code once, with the client's secret and the PKCE verifier; a bad one answers
// 200 with {"error": …}, as GitHub does), GET /user and /user/emails with the access token.
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

const CLIENT_ID = "gh-client";
const CLIENT_SECRET = "gh-secret-0123456789";

export interface GitHubPerson {
  id: number;
  login: string;
  name: string | null;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
}

const body = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let s = "";
    req.on("data", (c: Buffer) => (s += c.toString()));
    req.on("end", () => resolve(s));
  });

export class FakeGitHub {
  who: GitHubPerson = {
    id: 583231,
    login: "octocat",
    name: "The Octocat",
    emails: [
      { email: "octo@old.example", primary: false, verified: true },
      { email: "octocat@github.example", primary: true, verified: true },
    ],
  };
  private readonly codes = new Map<string, { challenge: string; redirectUri: string }>();
  private readonly tokens = new Map<string, GitHubPerson>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeGitHub> {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const gh = new FakeGitHub(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on("request", (req, res) => {
      gh.handle(req).then(
        ([status, headers, text]) => res.writeHead(status, headers).end(text),
        (e: unknown) => res.writeHead(500).end(String(e)),
      );
    });
    return gh;
  }

  env(): Record<string, string> {
    return {
      UPSTREAM_GH_KIND: "github",
      UPSTREAM_GH_ISSUER: this.url,
      UPSTREAM_GH_API_URL: `${this.url}/api`,
      UPSTREAM_GH_CLIENT_ID: CLIENT_ID,
      UPSTREAM_GH_CLIENT_SECRET: CLIENT_SECRET,
    };
  }

  private async handle(req: IncomingMessage): Promise<[number, Record<string, string>, string]> {
    const url = new URL(req.url ?? "/", this.url);
    const json = (v: unknown): [number, Record<string, string>, string] => [
      200,
      { "content-type": "application/json" },
      JSON.stringify(v),
    ];
    if (url.pathname === "/login/oauth/authorize") {
      const q = url.searchParams;
      if (q.get("client_id") !== CLIENT_ID || q.get("code_challenge_method") !== "S256")
        return [400, {}, "bad request"];
      const code = randomBytes(10).toString("hex");
      this.codes.set(code, { challenge: q.get("code_challenge")!, redirectUri: q.get("redirect_uri")! });
      const back = new URL(q.get("redirect_uri")!);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state")!);
      return [302, { location: back.href }, ""];
    }
    if (url.pathname === "/login/oauth/access_token" && req.method === "POST") {
      const f = new URLSearchParams(await body(req));
      const code = this.codes.get(f.get("code") ?? "");
      this.codes.delete(f.get("code") ?? "");
      const verified =
        code &&
        f.get("client_secret") === CLIENT_SECRET &&
        f.get("redirect_uri") === code.redirectUri &&
        createHash("sha256")
          .update(f.get("code_verifier") ?? "")
          .digest("base64url") === code.challenge;
      if (!verified) return json({ error: "bad_verification_code" });
      const token = `gho_${randomBytes(16).toString("hex")}`;
      this.tokens.set(token, this.who);
      return json({ access_token: token, token_type: "bearer", scope: "read:user,user:email" });
    }
    const person = this.tokens.get((req.headers.authorization ?? "").replace(/^Bearer /, ""));
    if (url.pathname === "/api/user") {
      if (!person) return [401, {}, '{"message":"Bad credentials"}'];
      return json({ id: person.id, login: person.login, name: person.name });
    }
    if (url.pathname === "/api/user/emails") {
      if (!person) return [401, {}, '{"message":"Bad credentials"}'];
      return json(person.emails);
    }
    return [404, {}, "not found"];
  }

  /** Follows the browser from Sigil's redirect to GitHub back to Sigil: the callback URL. */
  async authorize(location: string): Promise<URL> {
    const r = await fetch(location, { redirect: "manual" });
    return new URL(r.headers.get("location")!);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
