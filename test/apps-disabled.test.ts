// CONTRACT §14 "Apps", docs/cli.md#sigil-apps-update: an operator disables an app (`sigil apps
// update --client-id ID --disabled on`) and its tokens stop working at once, on every node: its
// access tokens at /auth/user and /userinfo (invalid_token), its client at /token — code, refresh —
// and /introspect (invalid_client, "disabled"), and /authorize shows a page instead of giving a
// code. `--disabled off` lets it work again (its tokens were refused, not revoked). On both stores.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { sigil as runSigil, type CliResult } from "./support/cli.js";
import { http } from "./support/http.js";
import { TEST_SECRET, type TestNode } from "./support/nodes.js";
import { PageClient, authorize, basic, registerApp, token, userInfo, type TestApp } from "./support/pages.js";

const CB = "https://app.example/callback";

describeBackends("Disabling an app (sigil apps update --disabled)", function (this: Mocha.Suite, backend) {
  this.timeout(90_000);
  let node: TestNode;
  let other: TestNode;

  // On the embedded store the command runs in this process's CLI worker (support/cli.ts): an
  // in-process command opening the DATA_DIR of this process's node can deadlock LMDB (issue #27).
  const sigil = (...args: string[]): Promise<CliResult> =>
    runSigil({ SECRET: TEST_SECRET, NODE_ENV: "test", ...backend.env() }, ...args);

  async function setUp() {
    node = await backend.startNode();
    // A second node over the same store (the embedded store: one server owns it, so a twin).
    other = backend.redis ? await backend.startNode() : await backend.startTwin(node, {});
    const dev = new PageClient(node.url);
    await dev.signUp("dev");
    const app = await registerApp(dev, [CB], "Weather");
    const grant = async () => {
      const url = await authorize(dev, {
        response_type: "code",
        client_id: app.clientId,
        redirect_uri: CB,
        scope: "openid profile offline_access",
      });
      return url.searchParams.get("code")!;
    };
    const trade = (base: string, code: string) =>
      token(base, {
        grant_type: "authorization_code",
        code,
        redirect_uri: CB,
        client_id: app.clientId,
        client_secret: app.clientSecret,
      });
    const t = await trade(node.url, await grant());
    expect(t.status, t.text).to.equal(200);
    return { dev, app, grant, trade, access: t.json.access_token as string, refresh: t.json.refresh_token as string };
  }

  const refreshAt = (base: string, app: TestApp, refresh: string) =>
    token(base, {
      grant_type: "refresh_token",
      refresh_token: refresh,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    });
  const introspect = (base: string, app: TestApp, t: string) =>
    http(base, "/introspect", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: basic(app.clientId, app.clientSecret),
      },
      body: new URLSearchParams({ token: t }).toString(),
    });
  const openIdUser = (base: string, access: string) =>
    http(base, "/userinfo", { headers: { authorization: `Bearer ${access}` } });

  it("When an operator disables an app, then on every node its tokens, its client and its sign-ins are refused at once; enabled again, they work", async () => {
    const { dev, app, grant, trade, access, refresh } = await setUp();
    const code = await grant(); // a code issued before the disabling
    const off = await sigil("apps", "update", "--client-id", app.clientId, "--disabled", "on");
    expect(off.code, off.err).to.equal(0);
    expect(off.json).to.include({ client_id: app.clientId, disabled: true });

    for (const base of [node.url, other.url]) {
      const u = await userInfo(base, access, app.clientId);
      expect(u.status, base).to.equal(401);
      expect(u.json.error).to.equal("invalid_token");
      expect((await openIdUser(base, access)).status).to.equal(401);
      for (const r of [await refreshAt(base, app, refresh), await introspect(base, app, access)]) {
        expect(r.status).to.equal(401);
        expect(r.json).to.deep.equal({
          error: "invalid_client",
          error_description: "This app was disabled by the operator of this service.",
        });
      }
    }
    const traded = await trade(other.url, code);
    expect(traded.status).to.equal(401);
    expect(traded.json.error).to.equal("invalid_client");
    const page = await dev.get(
      `/authorize?${new URLSearchParams({ response_type: "code", client_id: app.clientId, redirect_uri: CB, scope: "openid" })}`,
    );
    expect(page.status).to.equal(400);
    expect(page.headers.location).to.equal(undefined);
    expect(page.text).to.include("Weather is disabled");

    const on = await sigil("apps", "update", "--client-id", app.clientId, "--disabled", "off");
    expect(on.code, on.err).to.equal(0);
    expect(on.json).to.not.have.property("disabled");
    expect((await userInfo(other.url, access, app.clientId)).status).to.equal(200);
    expect((await refreshAt(other.url, app, refresh)).status).to.equal(200);
    expect((await trade(node.url, await grant())).status).to.equal(200);

    const log = await sigil("audit", "--type", "app.disabled", "--type", "app.enabled");
    expect(log.code, log.err).to.equal(0);
    expect(
      log.lines.map((l: { type: string; client_id: string; actor: unknown }) => [l.type, l.client_id, l.actor]),
    ).to.deep.equal([
      ["app.disabled", app.clientId, { kind: "operator" }],
      ["app.enabled", app.clientId, { kind: "operator" }],
    ]);
  });

  it("When --disabled is neither on nor off, then it is a usage error and the app is unchanged", async () => {
    const { app, access } = await setUp();
    const r = await sigil("apps", "update", "--client-id", app.clientId, "--disabled", "maybe");
    expect(r.code).to.equal(1);
    expect(r.out).to.equal("");
    expect(r.err).to.include("--disabled takes on or off");
    expect((await userInfo(node.url, access, app.clientId)).status).to.equal(200);
  });
});
