// POST /realtime/publish (docs/http-api.md#post-base_urlrealtimepublish, docs/realtime.md#channels)
// over HTTP: who may publish (an app by Basic client credentials, a CUSTOM TOKEN made with
// --publish, limited by --channel), what a body may hold (channel names, data bounds, batches all
// or nothing), the ids answered once the messages are in their channels' histories, and the
// per-app rate limit. One node per backend for the whole suite.
import { expect } from "chai";
import { describeBackendsWholeSuite } from "./support/backends.js";
import { http, type TestResponse } from "./support/http.js";
import type { TestNode } from "./support/nodes.js";
import { compareEventIds } from "../src/store/port.js";

const keep = { maxEvents: 1000, ttlSeconds: 86400 };

function expectError(r: TestResponse, status: number, code: string, what: string): void {
  expect(r.status, `${what}: ${r.text.slice(0, 300)}`).to.equal(status);
  expect(r.headers["content-type"], what).to.match(/^application\/json/);
  expect(Object.keys(r.json ?? {}).sort(), what).to.deep.equal(["error", "error_description"]);
  expect(r.json.error, what).to.equal(code);
}

describeBackendsWholeSuite("POST /realtime/publish", (backend) => {
  let node: TestNode;
  let app: string;
  let basic: string;
  let publishToken: string;
  let plainToken: string;
  let limitedToken: string;
  // One node for the suite; each test keeps to channels of its own.
  before(async () => {
    node = await backend.startNode();
    const made = await node.server.services.apps.create("owner", "Publisher", ["https://app.example/cb"]);
    app = made.app.clientId;
    basic = `Basic ${Buffer.from(`${app}:${made.clientSecret}`).toString("base64")}`;
    const tokens = node.server.services.customTokens;
    publishToken = (await tokens.create({ app, publish: true })).token;
    plainToken = (await tokens.create({ app })).token;
    limitedToken = (await tokens.create({ app, publish: true, channels: ["news", "user:1"] })).token;
  });
  const publish = (auth: string | undefined, body: unknown, raw?: string) =>
    http(node.url, "/realtime/publish", {
      method: "POST",
      headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) },
      body: raw ?? JSON.stringify(body),
    });
  const history = (channel: string) =>
    node.opened.store.channels.readAfter(app, channel, "0-0", 1000, keep).then((r) => r.messages);

  it("When the app publishes with its client credentials, one message or a batch, then it gets the ids, and each message is in its channel's history in order", async () => {
    const one = await publish(basic, { channel: "news", data: { title: "hello" } });
    expect(one.status, one.text).to.equal(200);
    expect(Object.keys(one.json)).to.deep.equal(["ids"]);
    expect(one.json.ids).to.have.length(1);
    expect(one.json.ids[0]).to.match(/^\d+-\d+$/);
    const batch = await publish(`Bearer ${publishToken}`, [
      { channel: "news", data: 1 },
      { channel: "user:1", data: "you" },
      { channel: "news", data: [null, true] },
    ]);
    expect(batch.status, batch.text).to.equal(200);
    const ids = batch.json.ids as string[];
    expect(ids).to.have.length(3);
    expect(compareEventIds(ids[2]!, ids[0]!)).to.equal(1);
    const news = await history("news");
    expect(news.map((m) => [m.id, JSON.parse(m.data)])).to.deep.equal([
      [one.json.ids[0], { title: "hello" }],
      [ids[0], 1],
      [ids[2], [null, true]],
    ]);
    expect((await history("user:1")).map((m) => m.id)).to.deep.equal([ids[1]]);
  });

  it("When the caller is not the app, or a token not made to publish or not for the channel, then 401 or 403 and nothing is stored", async () => {
    const body = { channel: "denied", data: 1 };
    const none = await publish(undefined, body);
    expectError(none, 401, "invalid_client", "no credentials");
    expect(none.headers["www-authenticate"]).to.match(/^Basic/);
    expectError(
      await publish(`Basic ${Buffer.from(`${app}:wrong`).toString("base64")}`, body),
      401,
      "invalid_client",
      "a wrong secret",
    );
    expectError(await publish("Bearer not-a-token", body), 401, "invalid_token", "an unknown token");
    expectError(await publish(`Bearer ${plainToken}`, body), 403, "forbidden", "a token without --publish");
    expectError(await publish(`Bearer ${limitedToken}`, body), 403, "forbidden", "a channel the token is not for");
    // A batch with one channel the token may not use: none of it.
    expectError(
      await publish(`Bearer ${limitedToken}`, [{ channel: "news", data: 1 }, body]),
      403,
      "forbidden",
      "a batch with one forbidden channel",
    );
    expect(await history("denied")).to.deep.equal([]);
    const ok = await publish(`Bearer ${limitedToken}`, { channel: "user:1", data: "ok" });
    expect(ok.status, ok.text).to.equal(200);
  });

  it("When the body is malformed, then 400 invalid_request (413 for data over 64 KB), and a batch with one bad message stores none of it", async () => {
    const bad: Array<[string, unknown]> = [
      ["no channel", { data: 1 }],
      ["an empty channel", { channel: "", data: 1 }],
      ["a space in the channel", { channel: "a b", data: 1 }],
      ["a | in the channel", { channel: "a|cut", data: 1 }],
      ["a channel of 129", { channel: "x".repeat(129), data: 1 }],
      ["a channel that is a number", { channel: 5, data: 1 }],
      ["no data", { channel: "bad" }],
      ["an empty batch", []],
      ["101 messages", Array.from({ length: 101 }, () => ({ channel: "bad", data: 1 }))],
      ["a message that is not an object", ["bad"]],
      [
        "a batch with one bad message",
        [
          { channel: "bad", data: 1 },
          { channel: "no space", data: 2 },
        ],
      ],
      ["data nested 65 deep", { channel: "bad", data: JSON.parse("[".repeat(65) + "]".repeat(65)) }],
      ["a string body", "hello"],
      ["null", null],
    ];
    for (const [what, body] of bad) expectError(await publish(basic, body), 400, "invalid_request", what);
    expectError(await publish(basic, undefined, "{not json"), 400, "invalid_request", "not JSON");
    const big = { channel: "bad", data: "x".repeat(64 * 1024) }; // 64 KB + 2 quotes as JSON
    expectError(await publish(basic, big), 413, "request_too_large", "data over 64 KB");
    expectError(
      await publish(basic, [{ channel: "bad", data: 1 }, big]),
      413,
      "request_too_large",
      "a batch with data over 64 KB",
    );
    expect(await history("bad")).to.deep.equal([]);
    // At the bounds: 128 characters, data of exactly 64 KB, a batch of 100 of them.
    const edge = "A-z_0.9:".repeat(16);
    const full = Array.from({ length: 100 }, () => ({ channel: edge, data: "é".repeat(32 * 1024 - 1) }));
    const r = await publish(basic, full);
    expect(r.status, r.text.slice(0, 300)).to.equal(200);
    expect(r.json.ids).to.have.length(100);
  });

  it("When 50 publishes to one channel are sent at once, then each gets its own id and all 50 are in the history", async () => {
    const rs = await Promise.all(Array.from({ length: 50 }, (_, i) => publish(basic, { channel: "burst", data: i })));
    for (const r of rs) expect(r.status, r.text).to.equal(200);
    const ids = rs.map((r) => r.json.ids[0] as string);
    expect(new Set(ids).size).to.equal(50);
    expect((await history("burst")).map((m) => m.id)).to.deep.equal([...ids].sort(compareEventIds));
  });
});
