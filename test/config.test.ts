// docs/settings.md: settings are validated once; a bad one stops the process with one clear line.
import { expect } from "chai";
import { spawn, spawnSync } from "node:child_process";
import { ConfigError, loadConfig } from "../src/config.js";
import { areas, settings } from "../src/config/settings.js";
import { http } from "./support/http.js";
import { mainArgs } from "./support/processes.js";

const bad = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.setting;
    throw e;
  }
  return undefined;
};

describe("Configuration", () => {
  it("When nothing is set, then the documented defaults apply (the embedded store in ./data), with a warning for the secret", () => {
    const { config, warnings } = loadConfig({});
    expect(config.port).to.equal(3000);
    expect(config.baseUrl).to.equal("http://localhost:3000");
    expect(config.authUrl).to.equal(config.baseUrl);
    expect(config.redisUrl).to.equal(undefined);
    expect(config.codeTtl).to.equal(60);
    expect(config.keepAliveTimeout, "above a load balancer's usual 60 s").to.equal(72);
    expect(Buffer.byteLength(config.secret)).to.be.at.least(32);
    expect(config.dataDir).to.equal("./data");
    expect(warnings.join("\n")).to.match(/SECRET/);
    expect(warnings.join("\n"), "the default store keeps its data").to.not.match(/REDIS_URL|in-process/);
    // The in-process store (tests, demos) says that it forgets everything.
    expect(loadConfig({ DATA_DIR: ":memory:" }).warnings.join("\n")).to.match(/in-process store .*lost on exit/);
    expect(Object.isFrozen(config) && Object.isFrozen(config.solveLimits)).to.equal(true);
  });

  it("When BASE_URL is set, then AUTH_URL follows it unless set itself", () => {
    expect(loadConfig({ BASE_URL: "https://api.example/" }).config.authUrl).to.equal("https://api.example");
    expect(loadConfig({ BASE_URL: "https://api.example", AUTH_URL: "https://login.example" }).config.authUrl).to.equal(
      "https://login.example",
    );
  });

  it("When a setting is bad, then the error names it", () => {
    expect(bad({ PORT: "http" })).to.equal("PORT");
    expect(bad({ PORT: "70000" })).to.equal("PORT");
    expect(bad({ BASE_URL: "ftp://x" })).to.equal("BASE_URL");
    expect(bad({ REDIS_URL: "http://localhost" })).to.equal("REDIS_URL");
    expect(bad({ SECRET: "short" })).to.equal("SECRET");
    expect(bad({ CODE_TTL: "601" })).to.equal("CODE_TTL");
    expect(bad({ CORS_ORIGINS: "not an origin" })).to.equal("CORS_ORIGINS");
    expect(bad({ NODE_ENV: "production" }), "SECRET is required in production").to.equal("SECRET");
    expect(bad({ REDIS_URL: "redis+cluster://a:1,b:2" })).to.equal(undefined);
    expect(bad({ HOT_ROUTES: "no" })).to.equal("HOT_ROUTES");
    expect(bad({ SIGNING_KEY_AT_START: "later" })).to.equal("SIGNING_KEY_AT_START");
    expect(bad({ KEEP_ALIVE_TIMEOUT: "0" })).to.equal("KEEP_ALIVE_TIMEOUT");
  });

  it("When a setting is bad, then the error says what it accepts, in the same words as ever", () => {
    const message = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (e) {
        if (e instanceof ConfigError) return e.message;
        throw e;
      }
      return "accepted";
    };
    const cases: [Record<string, string>, string][] = [
      [{ PORT: "http" }, "PORT: must be a whole number from 0 to 65535"],
      [{ PORT: "70000" }, "PORT: must be at most 65535"],
      [{ CODE_TTL: "0" }, "CODE_TTL: must be at least 1"],
      [{ ACCESS_TOKEN_TTL: "+60" }, "ACCESS_TOKEN_TTL: must be a whole number from 60 to 86400"],
      [{ REAUTH_MAX_AGE: "86401" }, "REAUTH_MAX_AGE: must be at most 86400"],
      [{ REAUTH_MAX_AGE: "0" }, "REAUTH_MAX_AGE: must be at least 1"],
      [{ BASE_URL: "https://a.example/?q" }, "BASE_URL: must be an absolute http(s) URL without query or fragment"],
      [{ AUTH_URL: "ftp://x" }, "AUTH_URL: must be an absolute http(s) URL without query or fragment"],
      [{ REDIS_URL: "http://r" }, "REDIS_URL: must be redis://, rediss:// or redis+cluster://host:port,host:port"],
      [{ KEY_PREFIX: "a b" }, "KEY_PREFIX: must be 1-32 of A-Z a-z 0-9 _ . : -"],
      [{ SECRET: "short" }, "SECRET: must be at least 32 bytes"],
      [{ NODE_ENV: "production" }, "SECRET: is required when NODE_ENV=production"],
      [
        { REDIS_WAIT_REPLICAS: "1" },
        "REDIS_WAIT_REPLICAS: needs REDIS_URL: the embedded store has no replicas to wait for",
      ],
      [
        { CORS_ORIGINS: "https://a.example/" },
        'CORS_ORIGINS: "https://a.example/" is not an origin like https://app.example',
      ],
      [{ ID_TOKEN_SIGNING_ALG: "HS256" }, "ID_TOKEN_SIGNING_ALG: must be RS256, ES256 or EdDSA"],
      [{ HOT_ROUTES: "yes" }, "HOT_ROUTES: must be on or off"],
      [{ SIGNING_KEY_AT_START: "later" }, "SIGNING_KEY_AT_START: must be on or off"],
      [{ SERVICE_NAME: " " }, "SERVICE_NAME: must be 1-40 characters"],
      [{ SERVICE_LOGO_URL: "/logo.svg" }, "SERVICE_LOGO_URL: must be an absolute http(s) URL"],
      [{ SMTP_URL: "http://mail.example" }, "SMTP_URL: must be smtp://[user:password@]host[:port] or smtps://…"],
      [{ MAIL_FROM: "nobody" }, "MAIL_FROM: must be an address, or Name <address>"],
      [{ NODE_ENV: "staging" }, 'NODE_ENV: Invalid option: expected one of "production"|"development"|"test"'],
      [
        { LOG_LEVEL: "loud" },
        'LOG_LEVEL: Invalid option: expected one of "fatal"|"error"|"warn"|"info"|"debug"|"trace"|"silent"',
      ],
      [{ REDIS_ADAPTER: "fast" }, 'REDIS_ADAPTER: Invalid option: expected one of "classic"|"sharded"'],
    ];
    for (const [env, expected] of cases) expect(message(env), JSON.stringify(env)).to.equal(expected);
  });

  it("When the settings table is read, then each variable and each field is there once, documented, and fills the Config", () => {
    const names = areas.flatMap((a) => Object.keys(a.settings));
    expect(names.length, "a variable in two areas").to.equal(new Set(names).size);
    expect(Object.keys(settings)).to.have.members(names);
    const fields = Object.values(settings).map((s) => s.field);
    expect(fields.length, "a field filled by two settings").to.equal(new Set(fields).size);
    const { config } = loadConfig({ REDIS_URL: "redis://r:6380", REDIS_WAIT_REPLICAS: "1" });
    const fieldsOf = config as unknown as Record<string, Record<string, unknown> | undefined>;
    for (const [name, s] of Object.entries(settings)) {
      for (const text of Object.values(s.doc)) expect(text.trim(), `${name}'s docs`).to.not.equal("");
      const [top, inner] = s.field.split(".") as [string, string | undefined];
      expect(config, `${name} fills ${s.field}`).to.have.property(top);
      if (inner !== undefined) expect(fieldsOf[top], `${name} fills ${s.field}`).to.have.property(inner);
    }
    const tops = new Set([...fields, "upstreams"].map((f) => f.split(".")[0]!));
    expect(
      Object.keys(config).filter((k) => !tops.has(k)),
      "Config fields no setting fills",
    ).to.deep.equal([]);
  });

  it("When upstream providers are set, then each is read by its id, checked, and a bad or unknown one stops the start naming its variable", () => {
    const corp = {
      UPSTREAM_CORP_KIND: "oidc",
      UPSTREAM_CORP_ISSUER: "https://id.corp.example/",
      UPSTREAM_CORP_CLIENT_ID: "sigil",
      UPSTREAM_CORP_CLIENT_SECRET: "s3cret-value",
    };
    expect(loadConfig({}).config.upstreams).to.deep.equal([]);
    expect(loadConfig({}).config.upstreamLinkByEmail).to.equal(false);
    const { config } = loadConfig({ ...corp, UPSTREAM_CORP_NAME: "Corp SSO", UPSTREAM_LINK_BY_EMAIL: "true" });
    expect(config.upstreamLinkByEmail).to.equal(true);
    expect(config.upstreams).to.deep.equal([
      {
        id: "corp",
        kind: "oidc",
        name: "Corp SSO",
        issuer: "https://id.corp.example",
        clientId: "sigil",
        clientSecret: "s3cret-value",
      },
    ]);
    expect(loadConfig(corp).config.upstreams[0]!.name).to.equal("CORP");
    expect(bad({ ...corp, UPSTREAM_CORP_KIND: "saml" })).to.equal("UPSTREAM_CORP_KIND");
    expect(bad({ ...corp, UPSTREAM_CORP_ISSUER: "id.corp.example" })).to.equal("UPSTREAM_CORP_ISSUER");
    expect(bad({ ...corp, UPSTREAM_CORP_CLIENT_SECRET: "" })).to.equal("UPSTREAM_CORP_CLIENT_SECRET");
    expect(bad({ UPSTREAM_CORP_CLIENT_ID: "x" })).to.equal("UPSTREAM_CORP_KIND");
    expect(bad({ ...corp, UPSTREAM_CORP_SCOPE: "openid" })).to.equal("UPSTREAM_CORP_SCOPE");
    expect(bad({ ...corp, UPSTREAM_LINK_BY_EMAIL: "yes" })).to.equal("UPSTREAM_LINK_BY_EMAIL");
    const gh = { UPSTREAM_GH_KIND: "github", UPSTREAM_GH_CLIENT_ID: "Iv1.x", UPSTREAM_GH_CLIENT_SECRET: "s" };
    expect(loadConfig(gh).config.upstreams[0]).to.include({
      id: "gh",
      name: "GitHub",
      issuer: "https://github.com",
      apiUrl: "https://api.github.com",
    });
    expect(loadConfig({ ...gh, UPSTREAM_GH_ISSUER: "https://ghe.example/" }).config.upstreams[0]!.apiUrl).to.equal(
      "https://ghe.example/api/v3",
    );
    expect(bad({ ...corp, UPSTREAM_CORP_API_URL: "https://api.example" })).to.equal("UPSTREAM_CORP_API_URL");
    expect(() => loadConfig({ ...corp, UPSTREAM_CORP_ISSUER: "nope" }))
      .to.throw(ConfigError, "UPSTREAM_CORP_ISSUER: must be an absolute http(s) URL")
      .with.property("message")
      .that.does.not.include("s3cret-value");
  });

  it("When the newest settings are set, then REAUTH_MAX_AGE and ID_TOKEN_SIGNING_ALG are read, with their defaults", () => {
    expect(loadConfig({}).config).to.include({ reauthMaxAge: 300, idTokenSigningAlg: "RS256" });
    expect(loadConfig({ REAUTH_MAX_AGE: "60", ID_TOKEN_SIGNING_ALG: "EdDSA" }).config).to.include({
      reauthMaxAge: 60,
      idTokenSigningAlg: "EdDSA",
    });
  });

  it("When REDIS_WAIT_REPLICAS is set, then it needs REDIS_URL and a whole number; unset, writes do not wait", () => {
    expect(loadConfig({}).config.redisWait).to.equal(undefined);
    expect(loadConfig({ REDIS_URL: "redis://r:6380", REDIS_WAIT_REPLICAS: "0" }).config.redisWait).to.equal(undefined);
    expect(loadConfig({ REDIS_URL: "redis://r:6380", REDIS_WAIT_REPLICAS: "1" }).config.redisWait).to.deep.equal({
      replicas: 1,
      timeoutMs: 500,
    });
    expect(
      loadConfig({ REDIS_URL: "redis://r:6380", REDIS_WAIT_REPLICAS: "2", REDIS_WAIT_TIMEOUT_MS: "50" }).config
        .redisWait,
    ).to.deep.equal({ replicas: 2, timeoutMs: 50 });
    expect(bad({ REDIS_WAIT_REPLICAS: "1" }), "the embedded store has no replicas").to.equal("REDIS_WAIT_REPLICAS");
    expect(bad({ REDIS_URL: "redis://r:6380", REDIS_WAIT_REPLICAS: "one" })).to.equal("REDIS_WAIT_REPLICAS");
    expect(bad({ REDIS_URL: "redis://r:6380", REDIS_WAIT_REPLICAS: "1", REDIS_WAIT_TIMEOUT_MS: "0" })).to.equal(
      "REDIS_WAIT_TIMEOUT_MS",
    );
  });

  it("When HOT_ROUTES or SIGNING_KEY_AT_START is unset or set, then it is on unless it says off", () => {
    expect(loadConfig({}).config.hotRoutes).to.equal(true);
    expect(loadConfig({ HOT_ROUTES: "on" }).config.hotRoutes).to.equal(true);
    expect(loadConfig({ HOT_ROUTES: "off" }).config.hotRoutes).to.equal(false);
    expect(loadConfig({}).config.signingKeyAtStart).to.equal(true);
    expect(loadConfig({ SIGNING_KEY_AT_START: "off" }).config.signingKeyAtStart).to.equal(false);
  });

  it("When PORT=0 and BASE_URL is unset, then the node listens on a free port and its URLs name that port", async () => {
    const proc = spawn(process.execPath, mainArgs(), {
      env: { PATH: process.env.PATH, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", DATA_DIR: ":memory:" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      // The port is known only from the start-up line.
      type Line = { msg: string; address: string; url: string; baseUrl: string };
      const listening = await new Promise<Line>((resolve, reject) => {
        let out = "";
        proc.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          for (const line of out.split("\n")) {
            if (line.includes('"msg":"sigil is listening')) resolve(JSON.parse(line) as Line);
          }
        });
        proc.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const port = new URL(listening.url).port;
      expect(port).to.match(/^\d+$/).and.not.equal("0");
      expect(listening.baseUrl).to.equal(`http://localhost:${port}`);
      // HOST=127.0.0.1: that address alone, as bound.
      expect(listening.address).to.equal(`http://127.0.0.1:${port}`);
      expect(listening.msg).to.equal(
        `sigil is listening on http://127.0.0.1:${port}, serving http://localhost:${port}`,
      );
      const meta = await http(listening.url, "/.well-known/oauth-authorization-server");
      expect(meta.json.issuer).to.equal(`http://localhost:${port}`);
      expect(meta.json.token_endpoint).to.equal(`http://localhost:${port}/token`);
    } finally {
      proc.kill("SIGKILL");
    }
  });

  it("When the pages' name and logo are set, then they are checked: a name of 1-40 characters, an http(s) logo URL", () => {
    expect(loadConfig({}).config).to.include({ serviceName: "Sigil", serviceLogoUrl: undefined });
    expect(loadConfig({ SERVICE_NAME: "  Acme ID " }).config.serviceName).to.equal("Acme ID");
    expect(loadConfig({ SERVICE_LOGO_URL: "https://cdn.example/l.svg" }).config.serviceLogoUrl).to.equal(
      "https://cdn.example/l.svg",
    );
    expect(bad({ SERVICE_NAME: "x".repeat(41) })).to.equal("SERVICE_NAME");
    expect(bad({ SERVICE_NAME: "   " })).to.equal("SERVICE_NAME");
    expect(bad({ SERVICE_NAME: "a\nb" })).to.equal("SERVICE_NAME");
    expect(bad({ SERVICE_LOGO_URL: "javascript:alert(1)" })).to.equal("SERVICE_LOGO_URL");
    expect(bad({ SERVICE_LOGO_URL: "/logo.svg" })).to.equal("SERVICE_LOGO_URL");
    expect(bad({ SERVICE_LOGO_URL: "https://u:p@cdn.example/l.svg" })).to.equal("SERVICE_LOGO_URL");
  });

  it("When mail is set, then SMTP_URL is smtp:// or smtps://, MAIL_FROM an address, the link lifetimes in range; a bad URL's error holds no password", () => {
    const off = loadConfig({}).config;
    expect(off).to.include({ smtpUrl: undefined, emailConfirmTtl: 86400, passwordResetTtl: 1800 });
    expect(off.mailFrom).to.equal('"Sigil" <no-reply@localhost>');
    const on = loadConfig({
      SMTP_URL: "smtps://u:p%40ss@mail.example:465",
      MAIL_FROM: "Acme <id@acme.example>",
    }).config;
    expect(on).to.include({ smtpUrl: "smtps://u:p%40ss@mail.example:465", mailFrom: "Acme <id@acme.example>" });
    expect(bad({ SMTP_URL: "http://mail.example" })).to.equal("SMTP_URL");
    expect(bad({ SMTP_URL: "mail.example:25" })).to.equal("SMTP_URL");
    expect(bad({ MAIL_FROM: "nobody" })).to.equal("MAIL_FROM");
    expect(bad({ MAIL_FROM: "a@b.example\r\nBcc: x@y.example" })).to.equal("MAIL_FROM");
    expect(bad({ EMAIL_CONFIRM_TTL: "0" })).to.equal("EMAIL_CONFIRM_TTL");
    expect(bad({ PASSWORD_RESET_TTL: "86401" })).to.equal("PASSWORD_RESET_TTL");
    try {
      loadConfig({ SMTP_URL: "ftp://user:hunter2secret@mail.example" });
      expect.fail("accepted");
    } catch (err) {
      expect(String(err)).to.not.include("hunter2secret");
    }
  });

  it("When the process starts with a bad setting, then it exits non-zero with one line naming it", () => {
    const r = spawnSync(process.execPath, mainArgs(), {
      env: { PATH: process.env.PATH, PORT: "not-a-port" },
      encoding: "utf8",
      timeout: 15_000,
    });
    expect(r.status).to.equal(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(/PORT/);
  });
});
