// Webhooks (docs/events.md#webhooks): identity events POSTed to the app's registered URL, signed
// the Standard Webhooks way (checked here with the `standardwebhooks` package and by hand with
// node:crypto), once each even with two nodes taking from the queue, retried with backoff when the
// answer is not 2xx (a redirect is not followed, a receiver that hangs times out), given up after
// DELIVERY_RETRY_FOR; every attempt listed on /developers, why one failed in the page's language
// (the store keeps a code, not words).
import { createHmac } from "node:crypto";
import { expect } from "chai";
import { Webhook } from "standardwebhooks";
import { describeBackends } from "./support/backends.js";
import { PageClient, authorize, capture, decodeHtml, registerApp, type TestApp } from "./support/pages.js";
import type { TestNode } from "./support/nodes.js";
import { Receiver, type Received } from "./support/receiver.js";
import { waitFor } from "./support/wait.js";
import { CATALOGS } from "../src/i18n/index.js";

/** Short timings: a look at the queue every 20 ms, retries from 50 ms, a 300 ms timeout. */
const FAST = { DELIVERY_POLL: "20", DELIVERY_RETRY_BASE: "50", DELIVERY_TIMEOUT: "300" };

/** The signature as a receiver without the library computes it: HMAC-SHA256 of id.timestamp.body. */
function signedByHand(secret: string, r: Received): boolean {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const content = `${r.headers["webhook-id"]}.${r.headers["webhook-timestamp"]}.${r.body}`;
  const expected = createHmac("sha256", key).update(content).digest("base64");
  return String(r.headers["webhook-signature"]).split(" ").includes(`v1,${expected}`);
}

describeBackends("Webhooks", (backend) => {
  let nodes: TestNode[];
  let receiver: Receiver;
  let dev: PageClient;
  let app: TestApp;
  let secret: string;
  let una: PageClient;
  let sub: string;
  afterEach(() => receiver?.close());

  async function setup(env: Record<string, string> = {}) {
    receiver = await Receiver.start();
    const start = () => backend.startNode({ ...FAST, ...env });
    nodes = backend.name === "redis" ? [await start(), await start()] : [await start()];
    dev = new PageClient(nodes[0]!.url);
    await dev.signUp("devon");
    app = await registerApp(dev);
    const set = await dev.submit("/developers", `/developers/${app.clientId}/events`, {
      webhook_url: receiver.url(),
      backchannel_logout_uri: "",
    });
    secret = decodeHtml(capture(/class="secret webhook-secret">([^<]+)</, set.text, "webhook secret"));
    una = new PageClient(nodes.at(-1)!.url);
    await una.signUp("una");
    sub = (await nodes[0]!.server.services.accounts.byUsername("una"))!.id;
  }
  const consent = () =>
    authorize(una, { response_type: "code", client_id: app.clientId, redirect_uri: app.redirectUri, scope: "openid" });
  const withdraw = () => una.submit("/account", "/account/consents/withdraw", { client_id: app.clientId });
  /** The delivery rows of the app on /developers: [outcome, answer text]. */
  async function listed(): Promise<Array<[string, string]>> {
    const page = await dev.get("/developers");
    return [...page.text.matchAll(/data-outcome="(\w+)">[\s\S]*?class="delivery-answer">([\s\S]*?)<\/td>/g)].map(
      (m) => [m[1]!, decodeHtml(m[2]!.replace(/<[^>]+>/g, ""))],
    );
  }
  const listedAtLeast = (n: number) =>
    waitFor(
      `${n} deliveries listed`,
      async () => {
        const rows = await listed();
        return rows.length >= n ? rows : undefined;
      },
      { ms: 10_000 },
    );

  it("When a user withdraws consent five times, then the webhook gets five signed events, once each with two nodes taking, and /developers lists them delivered", async () => {
    await setup();
    for (let i = 0; i < 5; i++) {
      await consent();
      expect((await withdraw()).status).to.equal(303);
    }
    const got = await receiver.until(5);
    const rows = await listedAtLeast(5);
    expect(rows.map(([outcome]) => outcome)).to.deep.equal(Array(5).fill("delivered"));
    expect(receiver.got, "no delivery sent twice").to.have.length(5);
    expect(new Set(got.map((r) => r.headers["webhook-id"])).size).to.equal(5);
    for (const r of got) {
      expect(r.path).to.equal("/hook");
      expect(r.headers["content-type"]).to.equal("application/json");
      expect(r.headers["webhook-id"]).to.match(/^msg_[A-Za-z0-9_-]+$/);
      expect(Number(r.headers["webhook-timestamp"])).to.be.closeTo(Date.now() / 1000, 30);
      const payload = new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
      expect(payload).to.deep.include({ type: "consent.withdrawn", data: { sub, client_id: app.clientId } });
      expect(Date.parse((payload as { timestamp: string }).timestamp)).to.be.closeTo(Date.now(), 30_000);
      expect(signedByHand(secret, r), "signature by hand").to.equal(true);
      expect(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).verify(r.body, r.headers as never),
      ).to.throw();
    }
  });

  it("When the receiver answers 500, then a redirect, then hangs, then 204, then the same message is retried with backoff, the redirect not followed, the hang timed out, and each attempt listed", async () => {
    await setup();
    receiver.answers.push(500, { redirect: receiver.url("/elsewhere") }, { hang: 1500 });
    await consent();
    expect((await withdraw()).status).to.equal(303);
    const got = await receiver.until(4);
    expect(got.map((r) => r.path)).to.deep.equal(["/hook", "/hook", "/hook", "/hook"]);
    expect(new Set(got.map((r) => r.headers["webhook-id"])).size, "one message").to.equal(1);
    for (const r of got) expect(new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).to.be.ok;
    const rows = await listedAtLeast(4);
    expect(rows.map(([outcome]) => outcome)).to.deep.equal(["delivered", "retrying", "retrying", "retrying"]);
    expect(rows[0]![1]).to.contain("204");
    expect(rows[1]![1]).to.contain("no answer within 300 ms");
    expect(rows[2]![1]).to.contain("302").and.contain("redirect");
    expect(rows[3]![1]).to.contain("500");
    // The store keeps why as a code; the page says it in the reader's language.
    const kept = await nodes[0]!.opened.store.deliveries.recent(app.clientId);
    expect(kept.map((a) => a.failure)).to.deep.equal([
      undefined,
      { code: "timeout", ms: 300 },
      { code: "redirect" },
      undefined,
    ]);
    expect(
      kept.every((a) => a.error === undefined),
      "no English text stored",
    ).to.equal(true);
    for (const lang of ["fr", "de", "es", "ja"] as const) {
      const page = decodeHtml((await dev.get("/developers", { "accept-language": lang })).text);
      expect(page, lang).to.contain(CATALOGS[lang]["dev.failTimeout"].replace("{ms}", "300"));
      expect(page, lang).to.contain(CATALOGS[lang]["dev.failRedirect"]);
      expect(page, lang).to.not.contain("no answer within").and.not.contain("(not followed)");
    }
  });

  it("When the webhook URL is on loopback and DELIVERY_ALLOW_PRIVATE is not set, then nothing is sent there, and /developers says why", async () => {
    await setup({ DELIVERY_ALLOW_PRIVATE: "false", DELIVERY_RETRY_FOR: "1" });
    await consent();
    expect((await withdraw()).status).to.equal(303);
    const rows = await listedAtLeast(1);
    expect(rows[0]![1]).to.contain("not public").and.contain("DELIVERY_ALLOW_PRIVATE");
    expect(receiver.got, "nothing reached the receiver").to.deep.equal([]);
  });

  it("When the receiver never answers 2xx, then the delivery is given up after DELIVERY_RETRY_FOR and nothing is left queued", async () => {
    await setup({ DELIVERY_RETRY_FOR: "1" });
    receiver.answers.push(...Array<number>(100).fill(503));
    await consent();
    await withdraw();
    const rows = await waitFor(
      "the delivery given up",
      async () => {
        const r = await listed();
        return r[0]?.[0] === "failed" ? r : undefined;
      },
      { ms: 10_000 },
    );
    expect(rows.length).to.be.greaterThan(1);
    expect(rows.slice(1).every(([outcome]) => outcome === "retrying")).to.equal(true);
    const far = Date.now() + 10 ** 9;
    expect(await nodes[0]!.opened.store.deliveries.take(far, 10, 1)).to.deep.equal([]);
  });
});
