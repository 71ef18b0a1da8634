// Bad input to the apps' channels (docs/realtime.md#channels, docs/http-api.md#post-base_urlrealtimepublish):
// property-based fuzzing of POST /realtime/publish (random bodies, channel names, data of every
// shape and size, batches, credentials) and of the subscribe / unsubscribe events (random
// payloads, extra arguments, no ack). Never a 5xx, a crash or an error logged; every refusal is
// the documented error object; a refused publish stores nothing (the channels' histories hold
// exactly the messages of the 200 answers); the socket stays connected and still receives.
// FUZZ_RUNS scales the run; FUZZ_SEED replays.
import { expect } from "chai";
import fc from "fast-check";
import type { Socket } from "socket.io-client";
import { describeBackendsWholeSuite } from "./support/backends.js";
import { ackWithin, readyClient } from "./support/channel.js";
import { expectContractError, fcOptsWithin, fuzzRuns } from "./support/fuzz.js";
import { http } from "./support/http.js";
import type { TestNode } from "./support/nodes.js";
import { waitFor } from "./support/wait.js";

const RUNS = fuzzRuns(60);
/** The channels the fuzz publishes to on purpose (others are random). */
const KNOWN = ["news", "user:1", "a.b-c_d:e"];
const keep = { maxEvents: 100_000, ttlSeconds: 86400 };

/** A channel name: usually a good one, often a bad one. */
const channelArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...KNOWN) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "a b",
      "a|cut",
      "x".repeat(129),
      "é",
      "\u0000",
      "news\n",
      "{app}",
      "__proto__",
      "constructor",
    ),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 140 }) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
);

const deep = (n: number) => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = i % 2 ? [v] : { d: v };
  return v;
};

/** A message's data: any JSON, sometimes at or over the bounds. */
const dataArb = fc.oneof(
  { weight: 5, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 200 }).map(deep) },
  { weight: 1, arbitrary: fc.integer({ min: 60_000, max: 70_000 }).map((n) => "x".repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 20_000, max: 23_000 }).map((n) => "é".repeat(n)) },
  { weight: 1, arbitrary: fc.constantFrom("\ud800", "\u0000", "", null, 0, -0, 1e308, [], {}) },
);

const messageArb = fc.oneof(
  { weight: 6, arbitrary: fc.record({ channel: channelArb, data: dataArb }) },
  {
    weight: 1,
    arbitrary: fc.record({ channel: channelArb, data: dataArb, extra: fc.anything() }, { requiredKeys: [] }),
  },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
);

const bodyArb = fc.oneof(
  { weight: 4, arbitrary: messageArb.map((m) => JSON.stringify(m) ?? "") },
  { weight: 3, arbitrary: fc.array(messageArb, { maxLength: 8 }).map((a) => JSON.stringify(a)) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 99, max: 102 })
      .map((n) => JSON.stringify(Array(n).fill({ channel: "news", data: 1 }))),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 200_000 }).map((n) => "[".repeat(n) + "]".repeat(n)) },
  { weight: 1, arbitrary: fc.constantFrom("", "null", "{", '{"channel":"news"}', '{"channel":"news","data":}', "[]") },
);

describeBackendsWholeSuite("Fuzzing the apps' channels with bad input", (backend) => {
  let node: TestNode;
  let token: string;
  let basic: string;
  let app: string;
  before(async () => {
    // A history large enough that nothing accepted is trimmed before it is counted.
    node = await backend.startNode({ LOG_LEVEL: "warn", CHANNEL_RATE_LIMIT: "10000", HISTORY_MAX_EVENTS: "1000000" });
    // Basic credentials and the token are the same app's: what either publishes is in its channels.
    const made = await node.server.services.apps.create("owner", "Fuzz", ["https://fuzz.example/cb"]);
    app = made.app.clientId;
    token = (await node.server.customTokens.create({ app, publish: true })).token;
    basic = `Basic ${Buffer.from(`${made.app.clientId}:${made.clientSecret}`).toString("base64")}`;
  });

  const errorLines = () => node.logs.filter((l) => /"level":"(error|fatal)"/.test(l));

  it("When random bodies and credentials are published, then every answer is 200 with ids or a documented 4xx, and the histories hold exactly what was accepted", async function () {
    this.timeout(Math.max(30_000, RUNS * 400));
    const accepted = new Map<string, number>();
    const auth = fc.oneof(
      { weight: 6, arbitrary: fc.constant(`Bearer ${token}`) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          basic,
          "",
          "Bearer",
          "Basic",
          "Basic !!!",
          "Basic " + Buffer.from("x:y").toString("base64"),
          `Bearer ${token}x`,
          `bearer ${token}`,
          "Digest x",
        ),
      },
    );
    const contentType = fc.constantFrom(
      "application/json",
      "application/json",
      "text/plain",
      "application/x-www-form-urlencoded",
    );
    await fc.assert(
      fc.asyncProperty(bodyArb, auth, contentType, async (body, authorization, type) => {
        const r = await http(node.url, "/realtime/publish", {
          method: "POST",
          headers: { "content-type": type, ...(authorization ? { authorization } : {}) },
          body,
          timeoutMs: 10_000,
        });
        const what = `${r.status} for ${body.slice(0, 120)}`;
        expect(r.status, what).to.be.oneOf([200, 400, 401, 403, 413, 429]);
        if (r.status !== 200) {
          expectContractError(r, what);
          return;
        }
        const sent = JSON.parse(body) as unknown;
        const list = (Array.isArray(sent) ? sent : [sent]) as Array<{ channel: string }>;
        expect(r.json.ids, what).to.have.length(list.length);
        for (const m of list) accepted.set(m.channel, (accepted.get(m.channel) ?? 0) + 1);
      }),
      fcOptsWithin(RUNS, this.timeout() - 5000),
    );
    for (const channel of new Set([...KNOWN, ...accepted.keys()])) {
      const read = await node.opened.store.channels.readAfter(app, channel, "0-0", 100_000, keep);
      expect(read.messages.length, channel).to.equal(accepted.get(channel) ?? 0);
    }
    expect(errorLines(), "error log lines").to.deep.equal([]);
  });

  it("When random subscribe, unsubscribe and presence payloads arrive, then every ack is a success or a documented error, the socket stays connected and still gets its messages", async function () {
    this.timeout(Math.max(30_000, RUNS * 200));
    const c = await readyClient(node.url, { token });
    const sock = c.socket as unknown as Socket;
    const since = fc.oneof(
      fc.constantFrom("0-0", "1-1", "9999999999999999-0", "1-", "-1", "1e3-0", "", " 1-0", null),
      fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.nat()).map(([a, b]) => `${a}-${b}`),
      fc.anything({ maxDepth: 1 }),
    );
    const payload = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record(
          {
            channel: channelArb,
            since,
            presence: fc.oneof(fc.boolean(), fc.constantFrom(null, 0, 1, "true", [], {}), fc.anything({ maxDepth: 1 })),
          },
          { requiredKeys: [] },
        ),
      },
      { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) },
    );
    const step = fc.record({
      event: fc.constantFrom("subscribe", "unsubscribe", "subscribe", "presence"),
      args: fc.array(payload, { minLength: 0, maxLength: 3 }),
      ack: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(step, async ({ event, args, ack }) => {
        if (!ack) {
          sock.emit(event, ...args);
          return;
        }
        const reply = await ackWithin(sock, 5000, event, ...args);
        const what = `${event} ${JSON.stringify(args)?.slice(0, 200)}: ${JSON.stringify(reply)}`;
        const keys = reply !== null && typeof reply === "object" ? Object.keys(reply).sort() : [];
        if (keys.length === 1 && keys[0] === "recovered")
          expect((reply as { recovered: unknown }).recovered).to.be.a("boolean");
        else if (keys.join() === "members,total") {
          expect(event, what).to.equal("presence");
          const { members, total } = reply as { members: unknown[]; total: unknown };
          expect(total, what).to.be.a("number").and.at.least(members.length);
          for (const m of members)
            expect(Object.keys(m as object).sort(), what).to.deep.equal(["connections", "token"]);
        } else if (keys.length === 0) expect(event, what).to.equal("unsubscribe");
        else {
          expect(keys, what).to.deep.equal(["error", "error_description"]);
          expect((reply as { error: string }).error, what).to.be.oneOf(["invalid_request", "forbidden"]);
        }
        expect(sock.connected, what).to.equal(true);
      }),
      fcOptsWithin(RUNS * 3, this.timeout() - 5000),
    );
    // Still usable: a subscription made now gets a message published now.
    expect(await ackWithin(sock, 5000, "subscribe", { channel: "after-fuzz" })).to.deep.equal({ recovered: false });
    const r = await http(node.url, "/realtime/publish", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ channel: "after-fuzz", data: "still here" }),
    });
    expect(r.status).to.equal(200);
    const got = await waitFor("the message after the fuzz", () => {
      const m = c.messages.filter((x) => x.channel === "after-fuzz");
      return m.length > 0 ? m : undefined;
    });
    expect(got.map((m) => m.data)).to.deep.equal(["still here"]);
    c.close();
    expect(errorLines(), "error log lines").to.deep.equal([]);
  });
});
