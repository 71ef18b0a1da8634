// Editing an app (docs/http-api.md#developers, docs/cli.md#sigil-apps-update): its owner on
// /developers, or `sigil apps update`, changes the name and URLs; the client id, secret, consents
// and tokens stay. To anyone else the app does not exist; a refused value changes nothing.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { sigil as sigilIn, sigilProcess } from "./support/cli.js";
import { registerPublicApp } from "./support/grants.js";
import { http } from "./support/http.js";
import { PageClient, authorize, registerApp, token, type TestApp } from "./support/pages.js";
import type { TestNode } from "./support/nodes.js";

const OLD = "https://old.example/cb";
const NEW = "https://new.example/cb";

describeBackends("Editing an app", (backend) => {
  let node: TestNode;
  let dev: PageClient;
  let app: TestApp;
  beforeEach(async () => {
    node = await backend.startNode();
    dev = new PageClient(node.url);
    await dev.signUp("devon");
    app = await registerApp(dev, [OLD], "Old name");
  });

  const edit = (who: PageClient, fields: Record<string, string>) =>
    who.submit("/developers", `/developers/${app.clientId}/edit`, {
      name: "New name",
      redirect_uri: NEW,
      post_logout_redirect_uri: "",
      homepage: "",
      ...fields,
    });

  /** /authorize for a signed-in user at this redirect URL, without deciding anything. */
  const ask = (user: PageClient, redirectUri: string) =>
    user.get(
      `/authorize?${new URLSearchParams({ response_type: "code", client_id: app.clientId, redirect_uri: redirectUri, scope: "openid offline_access", state: "s" })}`,
    );

  /** A user who consented at OLD, and their refresh token. */
  async function consentedUser() {
    const user = new PageClient(node.url);
    await user.signUp("una");
    const back = await authorize(user, {
      response_type: "code",
      client_id: app.clientId,
      redirect_uri: OLD,
      scope: "openid offline_access",
      state: "s",
    });
    const t = await token(node.url, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      redirect_uri: OLD,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    });
    expect(t.status, t.text).to.equal(200);
    return { user, refresh: (JSON.parse(t.text) as { refresh_token: string }).refresh_token };
  }

  it("When the owner changes the redirect URL and name, then the consent, secret and refresh token stay and only the new URL works", async () => {
    const { user, refresh } = await consentedUser();
    const r = await edit(dev, {});
    expect(r.status, r.text.slice(0, 500)).to.equal(200);
    expect(r.text).to.contain("New name").and.contain(app.clientId).and.contain(NEW);

    const again = await ask(user, NEW);
    expect(again.status, "no new consent page").to.equal(303);
    const back = new URL(again.headers.location as string);
    expect(back.origin + back.pathname).to.equal(NEW);
    const traded = await token(node.url, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      redirect_uri: NEW,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    });
    expect(traded.status, traded.text).to.equal(200);
    const refreshed = await token(node.url, {
      grant_type: "refresh_token",
      refresh_token: refresh,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    });
    expect(refreshed.status, refreshed.text).to.equal(200);

    const old = await ask(user, OLD);
    expect(old.status).to.equal(400);
    expect(old.text).to.contain(OLD);
  });

  it("When the owner's edit, an operator's disabling and a secret rotation are sent at once, each read before the others wrote, then all three hold", async () => {
    const { apps } = node.server.services;
    const stale = (await apps.byClientId(app.clientId))!;
    await Promise.all(
      Array.from({ length: 10 }, () => [
        apps.update(stale, { name: "Renamed" }),
        apps.update(stale, { disabled: true }),
        apps.rotateSecret(stale, false),
      ]).flat(),
    );
    const stored = (await apps.byClientId(app.clientId))!;
    expect(stored).to.include({ name: "Renamed", disabled: true });
    expect(stored.secretHash).to.not.equal(stale.secretHash);
    expect(stored.redirectUris).to.deep.equal([OLD]);
  });

  it("When another user edits the app, then it is 404 and nothing changes", async () => {
    const { user } = await consentedUser();
    const mallory = new PageClient(node.url);
    await mallory.signUp("mallory");
    const r = await edit(mallory, { name: "Pwned" });
    expect(r.status).to.equal(404);
    expect(r.text).to.not.contain("Old name");
    expect((await ask(user, OLD)).status).to.equal(303);
    expect((await ask(user, NEW)).status).to.equal(400);
    const mine = await dev.get("/developers");
    expect(mine.text).to.contain("Old name").and.not.contain("Pwned");
  });

  for (const [what, uri] of [
    ["plain http, not loopback", "http://app.example/cb"],
    ["10 KB long", `https://app.example/${"a".repeat(10_000)}`],
  ]) {
    it(`When the new redirect URL is ${what}, then the form comes back with the reason and nothing changes`, async () => {
      const { user } = await consentedUser();
      const r = await edit(dev, { redirect_uri: uri! });
      expect(r.status).to.equal(400);
      expect(r.text).to.contain('role="alert"').and.contain('<details class="app-edit" open');
      expect((await ask(user, OLD)).status).to.equal(303);
      expect((await dev.get("/developers")).text)
        .to.contain("Old name")
        .and.not.contain("New name");
    });
  }

  it("When the edit is posted without the form's CSRF token, then it is refused and nothing changes", async () => {
    const r = await dev.post(`/developers/${app.clientId}/edit`, { name: "New name", redirect_uri: NEW });
    expect(r.status).to.equal(403);
    expect((await dev.get("/developers")).text)
      .to.contain("Old name")
      .and.not.contain("New name");
  });

  it("When the homepage is not an http(s) URL, then nothing changes", async () => {
    const r = await edit(dev, { homepage: "javascript:alert(1)" });
    expect(r.status).to.equal(400);
    expect((await dev.get("/developers")).text)
      .to.contain("Old name")
      .and.not.contain("New name");
  });

  it("When a public client's redirect URL moves to another origin, then CORS at /token follows it", async () => {
    const spa = await registerPublicApp(dev, ["https://spa-old.example/cb"]);
    const preflight = async (origin: string) =>
      (
        await http(node.url, "/token", {
          method: "OPTIONS",
          headers: {
            origin,
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type",
          },
        })
      ).headers["access-control-allow-origin"];
    expect(await preflight("https://spa-old.example")).to.equal("https://spa-old.example");
    const r = await dev.submit("/developers", `/developers/${spa.clientId}/edit`, {
      name: "Browser App",
      redirect_uri: "https://spa-new.example/cb",
    });
    expect(r.status, r.text.slice(0, 300)).to.equal(200);
    expect(await preflight("https://spa-new.example")).to.equal("https://spa-new.example");
    expect(await preflight("https://spa-old.example")).to.equal(undefined);
  });

  /** `sigil apps update` on this suite's store with the node's SECRET, in this process or as the real program. */
  const cli = async (inProcess: boolean, ...args: string[]) => {
    const r = await (inProcess ? sigilIn : sigilProcess)({ ...backend.env(), SECRET: node.config.secret }, ...args);
    return { status: r.code, out: r.out.trim(), err: r.err.trim() };
  };

  it("When `sigil apps update` renames an app and replaces its redirect URLs, then it prints the app without a secret and the rest stays", async () => {
    const { user } = await consentedUser();
    const r = await cli(
      true,
      ...[
        "apps",
        "update",
        "--client-id",
        app.clientId,
        "--redirect-uri",
        NEW,
        "--redirect-uri",
        "http://127.0.0.1/cb",
      ],
    );
    expect(r.status, r.err).to.equal(0);
    expect(JSON.parse(r.out)).to.deep.equal({
      client_id: app.clientId,
      name: "Old name",
      redirect_uris: [NEW, "http://127.0.0.1/cb"],
    });
    expect(r.out).to.not.contain(app.clientSecret);
    expect((await ask(user, NEW)).status).to.equal(303);
    expect((await ask(user, OLD)).status).to.equal(400);

    const named = await cli(
      true,
      "apps",
      "update",
      "--client-id",
      app.clientId,
      "--name",
      "Renamed",
      "--homepage",
      "https://new.example/",
    );
    expect(named.status, named.err).to.equal(0);
    expect(JSON.parse(named.out)).to.include({ name: "Renamed", homepage: "https://new.example/" });
    expect((JSON.parse(named.out) as { redirect_uris: string[] }).redirect_uris).to.have.length(2);

    const bad = await cli(
      true,
      "apps",
      "update",
      "--client-id",
      app.clientId,
      "--redirect-uri",
      "http://app.example/cb",
    );
    expect(bad.status).to.equal(1);
    expect(bad.err).to.match(/^sigil: /);
    expect((await ask(user, NEW)).status).to.equal(303);
  });

  it("When the real `sigil apps update` is given an unknown client id, then it exits 1 with a clear error", async function () {
    this.timeout(60_000);
    const r = await cli(false, "apps", "update", "--client-id", "no-such-app", "--name", "X");
    expect(r.status).to.equal(1);
    expect(r.err).to.contain("sigil: No app has this client_id.");
    expect(r.out).to.equal("");
    const ok = await cli(false, "apps", "update", "--client-id", app.clientId, "--name", "From the CLI");
    expect(ok.status, ok.err).to.equal(0);
    expect((await dev.get("/developers")).text).to.contain("From the CLI");
  });
});
