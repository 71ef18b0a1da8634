// Registering where an app hears about its users (docs/events.md#registering): a webhook URL, whose
// signing secret is shown once, and a back-channel logout URL, with `sigil apps update` and on
// /developers; checked like redirect URLs; kept by both stores; Discovery says Back-Channel Logout.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { sigil } from "./support/cli.js";
import { http } from "./support/http.js";
import { PageClient, capture, decodeHtml, registerApp, type TestApp } from "./support/pages.js";
import type { TestNode } from "./support/nodes.js";

const HOOK = "https://hooks.example/sigil";
const BCL = "https://app.example/backchannel-logout";
/** Standard Webhooks: `whsec_` and the key in base64 (32 bytes here). */
const SECRET_FORM = /^whsec_[A-Za-z0-9+/]{43}=$/;

describeBackends("Registering an app's webhook and back-channel logout URLs", (backend) => {
  let node: TestNode;
  let dev: PageClient;
  let app: TestApp;
  beforeEach(async () => {
    node = await backend.startNode();
    dev = new PageClient(node.url);
    await dev.signUp("devon");
    app = await registerApp(dev);
  });

  const cli = async (...args: string[]) => {
    const r = await sigil(
      { ...backend.env(), SECRET: node.config.secret },
      "apps",
      "update",
      "--client-id",
      app.clientId,
      ...args,
    );
    return { code: r.code, json: r.code === 0 ? (JSON.parse(r.out) as Record<string, unknown>) : {}, err: r.err };
  };
  const stored = async () => (await node.server.services.apps.byClientId(app.clientId))!;
  const secretOf = async () => node.server.services.eventEndpoints.webhookSecret(await stored());

  it("When `sigil apps update` sets, sets again, refuses and clears them, then the secret is new each time, shown once, and a refusal changes nothing", async () => {
    const set = await cli("--webhook-url", HOOK, "--backchannel-logout-uri", BCL);
    expect(set.code, set.err).to.equal(0);
    expect(set.json).to.include({ client_id: app.clientId, webhook_url: HOOK, backchannel_logout_uri: BCL });
    const first = set.json.webhook_secret as string;
    expect(first).to.match(SECRET_FORM);
    expect(await secretOf(), "what deliveries are signed with").to.equal(first);
    expect(JSON.stringify(await stored()), "kept sealed, never in clear").to.not.contain(first.slice(6));

    const again = await cli("--webhook-url", HOOK);
    expect(again.json.webhook_secret).to.match(SECRET_FORM).and.not.equal(first);
    expect(await secretOf()).to.equal(again.json.webhook_secret);
    const rename = await cli("--name", "Renamed");
    expect(rename.json, "no secret unless the URL is set").to.not.have.property("webhook_secret");
    expect(await secretOf(), "the secret stays").to.equal(again.json.webhook_secret);

    for (const bad of ["http://hooks.example/in", "https://u:p@hooks.example/#f"]) {
      const refused = await cli("--name", "Never", "--webhook-url", bad);
      expect(refused.code, bad).to.not.equal(0);
      expect(refused.err, bad).to.match(/Webhook URL/);
    }
    expect((await cli("--backchannel-logout-uri", "ftp://x")).err).to.match(/Back-channel logout URL/);
    expect(await stored()).to.include({ name: "Renamed", webhookUrl: HOOK, backchannelLogoutUri: BCL });
    expect(await cli("--webhook-url", "http://127.0.0.1:9/in")).to.have.property("code", 0);

    const cleared = await cli("--webhook-url", "", "--backchannel-logout-uri", "");
    expect(cleared.code, cleared.err).to.equal(0);
    expect(cleared.json).to.not.have.any.keys("webhook_url", "backchannel_logout_uri", "webhook_secret");
    const after = await stored();
    expect(after).to.not.have.any.keys("webhookUrl", "webhookSecretSealed", "backchannelLogoutUri");
  });

  it("When the owner sets them on /developers, then the secret is shown in that answer only; a bad URL is refused with the reason; another user gets 404", async () => {
    const events = (who: PageClient, fields: Record<string, string>) =>
      who.submit("/developers", `/developers/${app.clientId}/events`, {
        webhook_url: HOOK,
        backchannel_logout_uri: BCL,
        ...fields,
      });
    const r = await events(dev, {});
    expect(r.status, r.text.slice(0, 300)).to.equal(200);
    const shown = decodeHtml(capture(/class="secret webhook-secret">([^<]+)</, r.text, "webhook secret"));
    expect(shown).to.match(SECRET_FORM);
    expect(await secretOf()).to.equal(shown);
    const page = await dev.get("/developers");
    expect(page.text).to.contain(HOOK).and.contain(BCL).and.not.contain(shown);

    // The same URL again keeps the secret; the box makes a new one.
    expect((await events(dev, {})).text).to.not.contain("webhook-secret");
    expect(await secretOf()).to.equal(shown);
    const renewed = await events(dev, { new_webhook_secret: "1" });
    expect(decodeHtml(capture(/class="secret webhook-secret">([^<]+)</, renewed.text, "new"))).to.not.equal(shown);

    for (const v of [`https://h.example/${"x".repeat(10_000)}`, "javascript:alert(1)", "/relative"]) {
      const r2 = await events(dev, { backchannel_logout_uri: v });
      expect(r2.status, v.slice(0, 30)).to.equal(400);
      expect(r2.text).to.contain("Back-channel logout URL");
    }
    const bad = await events(dev, { webhook_url: "http://hooks.example/in" });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.contain("Webhook URL").and.contain("aria-describedby");
    expect((await stored()).webhookUrl).to.equal(HOOK);

    // 50 new secrets asked for at once: the one that works is one of those shown.
    const all = await Promise.all(Array.from({ length: 50 }, () => events(dev, { new_webhook_secret: "1" })));
    const printed = all.map((x) => decodeHtml(capture(/class="secret webhook-secret">([^<]+)</, x.text, "secret")));
    expect(new Set(printed).size).to.equal(50);
    expect(printed).to.include(await secretOf());

    const mallory = new PageClient(node.url);
    await mallory.signUp("mallory");
    expect((await events(mallory, { webhook_url: "https://evil.example/" })).status).to.equal(404);

    const cleared = await events(dev, { webhook_url: "", backchannel_logout_uri: "" });
    expect(cleared.status).to.equal(200);
    expect(await stored()).to.not.have.any.keys("webhookUrl", "webhookSecretSealed", "backchannelLogoutUri");
  });

  it("When a client reads Discovery, then it says Back-Channel Logout is supported, with sessions (sid), and front-channel logout is not", async () => {
    const d = (await http(node.url, "/.well-known/openid-configuration")).json as Record<string, unknown>;
    expect(d.backchannel_logout_supported).to.equal(true);
    expect(d.backchannel_logout_session_supported).to.equal(true);
    expect(d).to.not.have.any.keys("frontchannel_logout_supported", "frontchannel_logout_session_supported");
    expect(d.claims_supported).to.include("sid");
  });
});
