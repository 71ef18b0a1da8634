// Channel messages to the app's webhook, when chosen (docs/events.md#channel-messages): the app
// lists channels (names, prefixes ending in *) on /developers or with `sigil apps update
// --webhook-channels`; each message it publishes to one of them is POSTed to its webhook as a
// `channel.message`, signed the Standard Webhooks way (checked with the `standardwebhooks`
// package), with the message as the sockets get it; other channels' messages are not sent. With
// two nodes (Redis) taking from the queue, each is sent once.
import { expect } from "chai";
import { Webhook } from "standardwebhooks";
import { describeBackends } from "./support/backends.js";
import { call, publishWith, readyClient } from "./support/channel.js";
import { sigil } from "./support/cli.js";
import { embeddedDump } from "./support/embedded.js";
import { PageClient, capture, decodeHtml, registerApp, type TestApp } from "./support/pages.js";
import type { TestNode } from "./support/nodes.js";
import { Receiver, type Received } from "./support/receiver.js";
import { waitFor } from "./support/wait.js";

// Deliveries are at least once (docs/choices.md): one that outlasts DELIVERY_TIMEOUT is sent again.
// These cases count each message once, which tests the queue's claims, not the receiver's speed: a
// timeout a loaded machine cannot reach (at 1 s, a run at load 11 saw 68 POSTs of 50 messages).
const FAST = { DELIVERY_POLL: "20", DELIVERY_RETRY_BASE: "50", DELIVERY_TIMEOUT: "15000" };

interface Payload {
  type: string;
  timestamp: string;
  data: { channel: string; id: string; data: unknown; at: string };
}

describeBackends("Channel messages to webhooks", (backend) => {
  let nodes: TestNode[];
  let receiver: Receiver;
  let dev: PageClient;
  let app: TestApp;
  let secret: string;
  let publisher: string;
  afterEach(() => receiver?.close());

  const events = (fields: Record<string, string>) =>
    dev.submit("/developers", `/developers/${app.clientId}/events`, { backchannel_logout_uri: "", ...fields });

  async function setup(channels: string) {
    receiver = await Receiver.start();
    const start = () => backend.startNode(FAST);
    nodes = backend.name === "redis" ? [await start(), await start()] : [await start()];
    dev = new PageClient(nodes[0]!.url);
    await dev.signUp("devon");
    app = await registerApp(dev);
    const set = await events({ webhook_url: receiver.url(), webhook_channels: channels });
    expect(set.status, set.text.slice(0, 300)).to.equal(200);
    secret = decodeHtml(capture(/class="secret webhook-secret">([^<]+)</, set.text, "webhook secret"));
    publisher = (await nodes[0]!.server.customTokens.create({ app: app.clientId, name: "pub", publish: true })).token;
  }

  /** Whether the store's delivery queue is empty: then nothing more can arrive. */
  function queueEmpty(): boolean {
    if (backend.redis) return backend.redis.cli("--scan", "--pattern", "*{deliveries}").trim() === "";
    return !embeddedDump(nodes[0]!.opened.store)
      .split("\n")
      .some((line) => line.startsWith("deliveries "));
  }
  /** Every delivery, once the queue is empty (each verified with the standardwebhooks package). */
  async function allDelivered(n: number): Promise<Payload[]> {
    await receiver.until(n, 20_000);
    await waitFor("the delivery queue empty", () => queueEmpty() || undefined, { ms: 10_000 });
    return receiver.got.map((r: Received) => {
      expect(r.headers["content-type"]).to.equal("application/json");
      return new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Payload;
    });
  }

  it("When an app publishes a batch of 100 to chosen and other channels, then each message of a chosen channel is POSTed once, signed, as the socket got it, and no other", async () => {
    await setup("orders:*, news");
    const c = await readyClient(nodes.at(-1)!.url, { token: publisher });
    expect(await call(c, "subscribe", { channel: "news" })).to.deep.equal({ recovered: false });
    const batch = Array.from({ length: 100 }, (_, i) => ({
      channel: ["news", "orders:42", "other", "orders"][i % 4]!,
      data: i % 8 === 0 ? { i, nested: [null, "é ☃", { deep: true }] } : i,
    }));
    const r = await publishWith(nodes[0]!.url, publisher, batch);
    expect(r.status, r.text).to.equal(200);
    const ids = r.json.ids as string[];
    const chosen = batch.flatMap((m, i) => (m.channel === "news" || m.channel === "orders:42" ? [i] : []));
    expect(chosen).to.have.length(50);
    const got = await allDelivered(50);
    expect(got, "each once, none of another channel").to.have.length(50);
    expect(new Set(receiver.got.map((g) => g.headers["webhook-id"])).size).to.equal(50);
    // Ids are per channel (two channels may share one): a message is its channel and id.
    const byId = new Map(got.map((p) => [`${p.data.channel}#${p.data.id}`, p]));
    expect(byId.size).to.equal(50);
    for (const i of chosen) {
      const p = byId.get(`${batch[i]!.channel}#${ids[i]}`);
      expect(p, `message ${i}`).to.not.equal(undefined);
      expect(p!.type).to.equal("channel.message");
      expect(p!.data).to.deep.include({ channel: batch[i]!.channel, id: ids[i], data: batch[i]!.data });
      expect(p!.timestamp).to.equal(p!.data.at);
    }
    // The socket got the same messages as the webhook (channel, id, data, at).
    const onSocket = await c.waitMessages(25);
    for (const m of onSocket) expect(byId.get(`${m.channel}#${m.id}`)!.data).to.deep.equal(m);
  });

  it("When 50 publishes run at once, then each chosen message is POSTed exactly once; once the list is cleared, nothing more is queued", async () => {
    await setup("hot");
    const sent = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        publishWith(nodes[i % nodes.length]!.url, publisher, [
          { channel: "hot", data: i },
          { channel: "cold", data: i },
        ]),
      ),
    );
    for (const s of sent) expect(s.status, s.text).to.equal(200);
    const got = await allDelivered(50);
    expect(got.map((p) => p.data.data as number).sort((a, b) => a - b)).to.deep.equal([...Array(50).keys()]);
    expect(got.every((p) => p.data.channel === "hot")).to.equal(true);

    // Cleared on the page: the next publishes queue nothing.
    expect((await events({ webhook_url: receiver.url(), webhook_channels: "" })).status).to.equal(200);
    expect((await publishWith(nodes[0]!.url, publisher, { channel: "hot", data: "late" })).status).to.equal(200);
    expect(queueEmpty(), "nothing queued for a channel no longer chosen").to.equal(true);
    expect(receiver.got).to.have.length(50);
  });

  it("When the list is bad on /developers or in the CLI, then nothing changes and the reason is shown; the CLI sets and clears it", async () => {
    await setup("news");
    const stored = async () => (await nodes[0]!.server.services.apps.byClientId(app.clientId))!.webhookChannels;
    for (const bad of ["bad name!", "a*b", "x".repeat(129), Array.from({ length: 21 }, (_, i) => `c${i}`).join(",")]) {
      const r = await events({ webhook_url: receiver.url(), webhook_channels: bad });
      expect(r.status, bad).to.equal(400);
      expect(r.text).to.contain("Webhook channels");
      expect(await stored()).to.deep.equal(["news"]);
    }
    const env = { ...backend.env(), SECRET: nodes[0]!.config.secret };
    const refused = await sigil(env, "apps", "update", "--client-id", app.clientId, "--webhook-channels", "no spaces!");
    expect(refused.code).to.equal(1);
    expect(refused.err).to.contain("Webhook channels");
    const set = await sigil(env, "apps", "update", "--client-id", app.clientId, "--webhook-channels", "a, b:* ,a");
    expect(set.code, set.err).to.equal(0);
    expect(set.json.webhook_channels).to.deep.equal(["a", "b:*"]);
    expect(set.json, "the URL stays, no new secret").to.not.have.property("webhook_secret");
    expect(await stored()).to.deep.equal(["a", "b:*"]);
    const cleared = await sigil(env, "apps", "update", "--client-id", app.clientId, "--webhook-channels", "");
    expect(cleared.json).to.not.have.property("webhook_channels");
    expect(await stored()).to.equal(undefined);
  });
});
