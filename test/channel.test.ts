// docs/http-api.md#challenges (owned challenges) and docs/realtime.md (the realtime channel) on one node, on the embedded
// store and on Redis.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { call, channelClient, readyClient, refusal, sleep } from "./support/channel.js";
import { challengeApi, http } from "./support/http.js";
import type { TestNode } from "./support/nodes.js";

const APP = "test-app";
const EVENT_ID = /^\d+-\d+$/;
const compareIds = (a: string, b: string) => {
  const [x, y] = [a, b].map((id) => id.split("-").map(BigInt));
  return x![0]! !== y![0]! ? (x![0]! < y![0]! ? -1 : 1) : x![1]! === y![1]! ? 0 : x![1]! < y![1]! ? -1 : 1;
};

describeBackends("Realtime channel", (backend) => {
  let node: TestNode;
  let token: string;
  let tokenId: string;
  let api: ReturnType<typeof challengeApi>;
  beforeEach(async () => {
    node = await backend.startNode();
    api = challengeApi(node.url);
    ({ token, id: tokenId } = await node.server.customTokens.create({ app: APP, name: "ci" }));
  });
  const bearer = () => ({ authorization: `Bearer ${token}` });

  describe("When a client connects", () => {
    it("then a valid token in auth.token is accepted and ready says {app, recovered:false}", async () => {
      const c = await readyClient(node.url, { token });
      expect(c.readies).to.deep.equal([{ app: APP, recovered: false }]);
    });

    it("then /metrics counts it while it is connected", async () => {
      const sockets = async () => {
        const text = (await http(node.url, "/metrics")).text;
        return Number(/^sigil_channel_sockets (\d+)$/m.exec(text)?.[1]);
      };
      expect(await sockets()).to.equal(0);
      const c = await readyClient(node.url, { token });
      expect(await sockets()).to.equal(1);
      c.close();
      for (let i = 0; i < 50 && (await sockets()) !== 0; i++) await sleep(20);
      expect(await sockets()).to.equal(0);
      expect((await http(node.url, "/metrics")).text).to.match(/^sigil_channel_connections_total 1$/m);
    });

    it("then a browser on another origin may use HTTP long-polling (CORS); with CORS_ORIGINS, only those origins", async () => {
      const poll = (url: string, origin: string) =>
        http(url, "/socket.io/?EIO=4&transport=polling", { headers: { origin } });
      const any = await poll(node.url, "https://app.example");
      expect(any.status).to.equal(200);
      expect(any.headers["access-control-allow-origin"]).to.equal("*");
      const preflight = await http(node.url, "/socket.io/?EIO=4&transport=polling", {
        method: "OPTIONS",
        headers: { origin: "https://app.example", "access-control-request-method": "POST" },
      });
      expect(preflight.status).to.equal(204);
      expect(preflight.headers["access-control-allow-origin"]).to.equal("*");
      const only = await backend.startNode({ CORS_ORIGINS: "https://app.example" });
      const listed = await poll(only.url, "https://app.example");
      expect(listed.headers["access-control-allow-origin"]).to.equal("https://app.example");
      const other = await poll(only.url, "https://evil.example");
      expect(other.headers["access-control-allow-origin"]).to.equal(undefined);
    });

    it("then, 50 clients at once, each one's CONNECT and ready leave the node in one write", async () => {
      // What the engine hands its transport in one go, per connection (engine.io's "flush" event).
      const flushes = new Map<string, string[][]>();
      // Engine.io packets as the wire has them: type 4 (message) + the Socket.IO packet.
      const onFlush = (conn: { id: string }, packets: Array<{ type: string; data?: unknown }>) => {
        const list = flushes.get(conn.id) ?? [];
        list.push(packets.map((p) => (p.type === "message" ? "4" : p.type) + String(p.data ?? "")));
        flushes.set(conn.id, list);
      };
      node.server.io.engine.on("flush", onFlush);
      try {
        const clients = await Promise.all(Array.from({ length: 50 }, () => readyClient(node.url, { token })));
        for (const c of clients) {
          const sent = flushes.get(c.socket.io.engine.id)!;
          const withConnect = sent.find((packets) => packets.some((p) => p.startsWith("40")))!;
          expect(withConnect).to.have.length(2);
          expect(withConnect[0]).to.match(/^40\{"sid":/);
          expect(JSON.parse(withConnect[1]!.slice(2))).to.deep.equal(["ready", { app: APP, recovered: false }]);
        }
      } finally {
        node.server.io.engine.off("flush", onFlush);
      }
    });

    it("then on HTTP long-polling ready comes in the same poll response as CONNECT (no second round trip)", async () => {
      const base = "/socket.io/?EIO=4&transport=polling";
      const open = await http(node.url, base);
      const sid = (JSON.parse(open.text.slice(1)) as { sid: string }).sid;
      // A poll waiting at the node when the CONNECT packet arrives, as a polling client keeps one.
      const poll = http(node.url, `${base}&sid=${sid}`);
      await sleep(100);
      const post = await http(node.url, `${base}&sid=${sid}`, {
        method: "POST",
        headers: { "content-type": "text/plain;charset=UTF-8" },
        body: `40${JSON.stringify({ token })}`,
      });
      expect(post.status).to.equal(200);
      const packets = (await poll).text.split("\x1e");
      expect(packets).to.have.length(2);
      expect(packets[0]).to.match(/^40\{"sid":/);
      expect(JSON.parse(packets[1]!.slice(2))).to.deep.equal(["ready", { app: APP, recovered: false }]);
    });

    it("then the token may come as Authorization: Bearer", async () => {
      const c = await readyClient(node.url, { token, viaHeader: true });
      expect(c.readies[0]).to.deep.equal({ app: APP, recovered: false });
    });

    const bad: Array<[string, () => Promise<string | undefined>]> = [
      ["missing", async () => undefined],
      ["malformed", async () => "not-a-jwt"],
      ["signed with another secret", async () => token.slice(0, -4) + (token.endsWith("AAAA") ? "BBBB" : "AAAA")],
      [
        "unknown (never issued here)",
        async () => {
          const other = await backend.startNode({ SECRET: "another-secret-0123456789abcdef0123456789" });
          return (await other.server.customTokens.create({ app: APP })).token;
        },
      ],
      [
        "revoked",
        async () => {
          const t = await node.server.customTokens.create({ app: APP });
          await node.server.customTokens.revoke(APP, t.id);
          return t.token;
        },
      ],
      [
        "expired",
        async () => {
          const t = await node.server.customTokens.create({ app: APP, expiresIn: 1 });
          await sleep(1100);
          return t.token;
        },
      ],
    ];
    for (const [what, make] of bad) {
      it(`then a ${what} token is refused with connect_error invalid_token and the error object as data`, async () => {
        const t = await make();
        const err = await refusal(node.url, t === undefined ? {} : { token: t });
        expect(err.message).to.equal("invalid_token");
        expect(err.data.error).to.equal("invalid_token");
        expect(err.data.error_description).to.be.a("string").and.not.empty;
        expect(JSON.stringify(err.data)).to.not.include(t ?? "@@");
      });
    }
  });

  describe("When a challenge is created with the app's CUSTOM TOKEN", () => {
    it("then every solve attempt reaches the app's sockets as challenge:result", async () => {
      const c1 = await readyClient(node.url, { token });
      const c2 = await readyClient(node.url, { token, viaHeader: true });
      const key = await api.createKey("2+2?", "4", bearer());
      expect((await api.solve(key, "5")).json).to.deep.equal({ correct: false });
      expect((await api.solve(key, "4")).json).to.deep.equal({ correct: true });
      for (const c of [c1, c2]) {
        const evs = await c.waitEvents(2);
        expect(evs.map((e) => [e.key, e.correct])).to.deep.equal([
          [key, false],
          [key, true],
        ]);
        for (const e of evs) {
          expect(e.id).to.match(EVENT_ID);
          expect(Object.keys(e).sort()).to.deep.equal(["at", "correct", "id", "key"]);
          expect(new Date(e.at).toISOString()).to.equal(e.at);
        }
      }
    });

    it("then 50 sockets of the app, some resuming with since while solves go on, each get every event once, in order", async () => {
      const key = await api.createKey("q", "a", bearer());
      await api.solve(key, "first");
      const first = await readyClient(node.url, { token });
      await api.solve(key, "second");
      const [seen] = await first.waitEvents(1);
      const live = await Promise.all(Array.from({ length: 40 }, () => readyClient(node.url, { token })));
      // Ten resume after the second event while five more solves land: replay, held-back live events, then live.
      const resuming = Array.from({ length: 10 }, () => channelClient(node.url, { token, since: seen!.id }));
      await Promise.all(["3", "4", "5", "6", "7"].map((a) => api.solve(key, a)));
      // A marker after them: once a client has it, it has everything it will ever get of these.
      await api.solve(key, "marker");
      await first.waitEvents(7);
      const order = first.events.map((e) => e.id);
      expect(new Set(order).size).to.equal(7);
      expect([...order].sort(compareIds)).to.deep.equal(order);
      for (const c of [...live, ...resuming]) {
        await c.waitEvents(6);
        expect(c.events.map((e) => e.id)).to.deep.equal(order.slice(1));
      }
      for (const c of resuming) expect((await c.waitReady()).recovered).to.equal(true);
    });

    it("then another app's sockets and anonymous challenges send nothing to this app", async () => {
      const other = (await node.server.customTokens.create({ app: "other-app" })).token;
      const mine = await readyClient(node.url, { token });
      const theirs = await readyClient(node.url, { token: other });
      const k1 = await api.createKey("q", "a", { authorization: `Bearer ${other}` });
      const k2 = await api.createKey("q", "a");
      await api.solve(k1, "a");
      await api.solve(k2, "a");
      await theirs.waitEvents(1);
      // A marker of each app, solved after them: nothing came before it.
      const markers = [
        await api.createKey("marker", "m", bearer()),
        await api.createKey("marker", "m", { authorization: `Bearer ${other}` }),
      ];
      for (const m of markers) await api.solve(m, "m");
      expect(await mine.eventsBefore(markers[0]!)).to.deep.equal([]);
      expect(await theirs.eventsBefore(markers[1]!)).to.have.length(1);
    });

    for (const [what, header] of [
      ["unknown", "Bearer nope"],
      ["empty", "Bearer "],
      ["not Bearer", "Basic abc"],
    ] as const) {
      it(`then an ${what} token is 401 invalid_token, not an anonymous challenge`, async () => {
        const r = await api.create("q", "a", { authorization: header });
        expect(r.status).to.equal(401);
        expect(r.json.error).to.equal("invalid_token");
        expect(r.headers["www-authenticate"]).to.equal('Bearer error="invalid_token"');
      });
    }

    it("then a revoked token is 401 invalid_token", async () => {
      await node.server.customTokens.revoke(APP, tokenId);
      const r = await api.create("q", "a", bearer());
      expect(r.status).to.equal(401);
    });
  });

  describe("When a client uses challenge:new and challenge:solve", () => {
    it("then both answer through their acks and the attempt becomes an event", async () => {
      const c = await readyClient(node.url, { token });
      const created = await call<{ key: string }>(c, "challenge:new", {
        question: "Hauptstadt?",
        answer: "Berlin",
        ttl: 120,
      });
      expect(Object.keys(created)).to.deep.equal(["key"]);
      expect((await api.question(created.key)).text).to.equal("Hauptstadt?");
      expect(await call(c, "challenge:solve", { key: created.key, a: "Berlin" })).to.deep.equal({ correct: true });
      const [e] = await c.waitEvents(1);
      expect(e).to.include({ key: created.key, correct: true });
    });

    const badPayloads: Array<[string, string, unknown[]]> = [
      ["no payload", "challenge:new", []],
      ["a string", "challenge:new", ["hello"]],
      ["null", "challenge:solve", [null]],
      ["an array", "challenge:solve", [["k", "a"]]],
      ["an empty question", "challenge:new", [{ question: "", answer: "a" }]],
      ["a ttl out of range", "challenge:new", [{ question: "q", answer: "a", ttl: 5 }]],
      ["a ttl as text", "challenge:new", [{ question: "q", answer: "a", ttl: "100" }]],
      ["a key that is not a UUID", "challenge:solve", [{ key: "nope", a: "a" }]],
      [
        "an answer of 201 characters",
        "challenge:solve",
        [{ key: "00000000-0000-4000-8000-000000000000", a: "x".repeat(201) }],
      ],
    ];
    for (const [what, event, args] of badPayloads) {
      it(`then ${what} for ${event} acks invalid_request`, async () => {
        const c = await readyClient(node.url, { token });
        const reply = await call<Record<string, string>>(c, event, ...args);
        expect(reply.error).to.equal("invalid_request");
        expect(reply.error_description).to.be.a("string");
      });
    }

    it("then an unknown key acks not_found and the socket stays connected", async () => {
      const c = await readyClient(node.url, { token });
      const reply = await call<Record<string, string>>(c, "challenge:solve", {
        key: "00000000-0000-4000-8000-000000000000",
        a: "x",
      });
      expect(reply.error).to.equal("not_found");
      // No ack, unknown events, huge garbage: ignored without a crash.
      (c.socket as any).emit("challenge:new", { question: "q" });
      (c.socket as any).emit("nonsense", 1, 2, 3);
      expect(await call(c, "challenge:new", { question: "q", answer: "a" })).to.have.property("key");
      expect(c.socket.connected).to.equal(true);
    });

    it("then more events than the per-socket rate are refused with rate_limited", async () => {
      const c = await readyClient(node.url, { token });
      const replies = await Promise.all(
        Array.from({ length: 40 }, () => call<Record<string, string>>(c, "challenge:solve", { key: "bad", a: "x" })),
      );
      const limited = replies.filter((r) => r.error === "rate_limited");
      expect(limited.length).to.be.greaterThan(0);
      expect(replies.filter((r) => r.error === "invalid_request").length).to.be.greaterThan(0);
    });
  });

  describe("When a client reconnects with since", () => {
    it("then it gets exactly the events it missed, in order, then ready recovered:true, then live ones", async () => {
      const key = await api.createKey("q", "a", bearer());
      const c = await readyClient(node.url, { token });
      await api.solve(key, "first");
      const [seen] = await c.waitEvents(1);
      c.close();
      const missed: boolean[] = [];
      for (let i = 0; i < 5; i++) {
        const ok = i % 2 === 0;
        await api.solve(key, ok ? "a" : `wrong${i}`);
        missed.push(ok);
      }
      const back = await readyClient(node.url, { token, since: seen!.id });
      expect(back.readies).to.deep.equal([{ app: APP, recovered: true }]);
      expect(back.events.map((e) => e.correct)).to.deep.equal(missed);
      const ids = back.events.map((e) => e.id);
      expect(new Set(ids).size).to.equal(5);
      expect(ids.every((id) => id !== seen!.id)).to.equal(true);
      await api.solve(key, "a");
      const all = await back.waitEvents(6);
      expect(all).to.have.length(6);
    });

    it("then a reconnect amid a stream of solves gets every event once, in order", async () => {
      const key = await api.createKey("q", "a", bearer());
      const c = await readyClient(node.url, { token });
      await api.solve(key, "a");
      const [seen] = await c.waitEvents(1);
      c.close();
      for (let i = 0; i < 20; i++) await api.solve(key, "a");
      const back = channelClient(node.url, { token, since: seen!.id });
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await api.solve(key, "a")).status);
      expect(statuses.every((st) => st === 200)).to.equal(true);
      await back.waitEvents(40);
      const marker = await api.createKey("marker", "m", bearer());
      await api.solve(marker, "m");
      const ids = (await back.eventsBefore(marker)).map((e) => e.id);
      expect(ids).to.have.length(40);
      expect(new Set(ids).size).to.equal(40);
      const sorted = [...ids].sort((x, y) => {
        const [a1, a2] = x.split("-").map(Number) as [number, number];
        const [b1, b2] = y.split("-").map(Number) as [number, number];
        return a1 - b1 || a2 - b2;
      });
      expect(ids).to.deep.equal(sorted);
    });

    it("then events published while the history is being read come once each, after the replay, before ready", async () => {
      const key = await api.createKey("q", "a", bearer());
      const c = await readyClient(node.url, { token });
      await api.solve(key, "a");
      const [seen] = await c.waitEvents(1);
      c.close();
      await api.solve(key, "no");
      await api.solve(key, "no");
      // A slow history read: 3 solves land before it runs (in the replay and live), 3 after it
      // (live only).
      const events = node.opened.store.events;
      const read = events.readAfter.bind(events);
      let first = true;
      events.readAfter = async (...args) => {
        if (!first) return read(...args);
        first = false;
        for (let i = 0; i < 3; i++) await api.solve(key, "a");
        await sleep(100);
        const r = await read(...args);
        for (let i = 0; i < 3; i++) await api.solve(key, "a");
        await sleep(100);
        return r;
      };
      const back = await readyClient(node.url, { token, since: seen!.id });
      expect(back.readies[0]).to.deep.equal({ app: APP, recovered: true });
      expect(back.events.map((e) => e.correct)).to.deep.equal([false, false, true, true, true, true, true, true]);
      expect(new Set(back.events.map((e) => e.id)).size).to.equal(8);
      const marker = await api.createKey("marker", "m", bearer());
      await api.solve(marker, "m");
      expect(await back.eventsBefore(marker)).to.have.length(8);
    });

    it("then a since older than the history gives recovered:false", async () => {
      const key = await api.createKey("q", "a", bearer());
      const c = await readyClient(node.url, { token });
      await api.solve(key, "a");
      const [seen] = await c.waitEvents(1);
      c.close();
      // Push the event out of the history (HISTORY_MAX_EVENTS is 1,000; Redis trims in blocks).
      const limits = { maxEvents: 1000, ttlSeconds: 86400 };
      const at = new Date().toISOString();
      for (let i = 0; i < 12; i++) {
        await Promise.all(
          Array.from({ length: 100 }, () => node.opened.store.events.append(APP, { key, correct: false, at }, limits)),
        );
      }
      const back = await readyClient(node.url, { token, since: seen!.id });
      expect(back.readies[0]).to.deep.equal({ app: APP, recovered: false });
    });

    it("then a malformed since counts as none: ready recovered:false", async () => {
      const c = await readyClient(node.url, { token, since: "yesterday" });
      expect(c.readies[0]).to.deep.equal({ app: APP, recovered: false });
    });

    // Found by test/fuzz-channel.test.ts: a since after every id the app ever had (a client's
    // invention) was taken as "seen up to here": ready said recovered:true and every live event
    // was dropped as already seen, until the clock passed it (year 2286 for this one).
    it("then a since after the newest event id gives recovered:false, and live events still come", async () => {
      const key = await api.createKey("q", "a", bearer());
      await api.solve(key, "a");
      for (const since of ["9999999999999999-0", `${Date.now() + 60_000}-0`]) {
        const c = await readyClient(node.url, { token, since });
        expect(c.readies[0], since).to.deep.equal({ app: APP, recovered: false });
        expect(c.events, since).to.deep.equal([]);
        await api.solve(key, "no");
        const [e] = await c.waitEvents(1);
        expect(e).to.include({ key, correct: false });
        c.close();
      }
    });
  });

  describe("When the token stops being valid", () => {
    it("then revoking it disconnects its sockets within 1 s, and only its sockets", async () => {
      const other = await node.server.customTokens.create({ app: APP });
      const c = await readyClient(node.url, { token });
      const keep = await readyClient(node.url, { token: other.token });
      const t0 = Date.now();
      await node.server.customTokens.revoke(APP, tokenId);
      expect(await c.waitDisconnect(1000)).to.equal("io server disconnect");
      expect(Date.now() - t0).to.be.lessThan(1000);
      // The other token's socket still gets a marker solved after the revocation.
      const marker = await api.createKey("marker", "m", { authorization: `Bearer ${other.token}` });
      await api.solve(marker, "m");
      expect(await keep.eventsBefore(marker)).to.deep.equal([]);
      expect(keep.socket.connected).to.equal(true);
    });

    /**
     * A token that expires about 2 s from now. A token's expiry is whole seconds (the JWT's exp)
     * counted from the second it was issued in, so one made with expires-in 1 late in a second lived
     * a few ms: on a busy machine the handshake came after it had expired, and the socket never
     * connected (seen in a fresh-clone run beside two CPU-bound loops). Made just after a second
     * begins, expires-in 2 leaves the handshake ~2 s.
     */
    const tokenForTwoSeconds = async () => {
      await sleep(1000 - (Date.now() % 1000) + 5);
      return node.server.customTokens.create({ app: APP, expiresIn: 2 });
    };

    it("then its expiry disconnects the socket", async () => {
      const t = await tokenForTwoSeconds();
      const c = await readyClient(node.url, { token: t.token });
      expect(await c.waitDisconnect(3500)).to.equal("io server disconnect");
    });

    it("then its expiry disconnects every socket of it, and none of another token", async () => {
      const t = await tokenForTwoSeconds();
      const cs = await Promise.all([1, 2, 3].map(() => readyClient(node.url, { token: t.token })));
      const keep = await readyClient(node.url, { token });
      const reasons = await Promise.all(cs.map((c) => c.waitDisconnect(3500)));
      expect(reasons).to.deep.equal(Array(3).fill("io server disconnect"));
      expect((await refusal(node.url, { token: t.token })).message).to.equal("invalid_token");
      expect(keep.socket.connected).to.equal(true);
    });

    it("then, after 50 sockets connected with it at once, revoking it drops all 50 and refuses 50 new handshakes at once", async () => {
      const cs = await Promise.all(Array.from({ length: 50 }, () => readyClient(node.url, { token })));
      await node.server.customTokens.revoke(APP, tokenId);
      const reasons = await Promise.all(cs.map((c) => c.waitDisconnect(1000)));
      expect(reasons).to.deep.equal(Array(50).fill("io server disconnect"));
      const errs = await Promise.all(Array.from({ length: 50 }, () => refusal(node.url, { token })));
      expect(errs.map((e) => e.message)).to.deep.equal(Array(50).fill("invalid_token"));
    });

    it("then 50 handshakes racing its revocation either fail or are dropped, and none stays connected", async () => {
      await readyClient(node.url, { token }); // the token was just checked: a burst may reuse that check
      const cs = Array.from({ length: 50 }, () => channelClient(node.url, { token }));
      const errors: string[] = [];
      for (const c of cs) c.socket.on("connect_error", (err) => errors.push(err.message));
      await node.server.customTokens.revoke(APP, tokenId);
      const settled = () => cs.every((c) => c.disconnects.length > 0 || c.socket.active === false);
      for (let i = 0; i < 200 && !settled(); i++) await sleep(10);
      expect(settled()).to.equal(true);
      expect(cs.filter((c) => c.socket.connected)).to.have.length(0);
      for (const c of cs) expect(c.disconnects.concat(c.socket.active ? [] : ["refused"])).to.have.length.above(0);
      expect(errors.every((m) => m === "invalid_token")).to.equal(true);
      expect((await refusal(node.url, { token })).message).to.equal("invalid_token");
    });
  });

  describe("When the node drains (SIGTERM)", () => {
    it("then sockets are closed at the transport, so clients reconnect (elsewhere)", async () => {
      const c = await readyClient(node.url, { token, reconnection: true });
      await node.close();
      expect(await c.waitDisconnect()).to.equal("transport close");
      expect(c.socket.active).to.equal(true);
      c.close();
    });
  });

  describe("When tokens are listed", () => {
    it("then they show without their value, newest first, revoked ones marked", async () => {
      await sleep(5);
      const second = await node.server.customTokens.create({ app: APP, name: "second", expiresIn: 3600 });
      await node.server.customTokens.revoke(APP, tokenId);
      const list = await node.server.customTokens.list(APP);
      expect(list.map((t) => [t.id, t.name, t.revoked])).to.deep.equal([
        [second.id, "second", false],
        [tokenId, "ci", true],
      ]);
      expect(JSON.stringify(list)).to.not.include(token);
      expect(list[0]!.expiresAt).to.be.a("number");
    });

    it("then a token cannot be issued for an unknown app", async () => {
      try {
        await node.server.customTokens.create({ app: "no-such-app" });
        expect.fail("issued");
      } catch (err) {
        expect((err as { code?: string }).code).to.equal("not_found");
      }
    });
  });
});

describeBackends("Socket solves behind a proxy", (backend) => {
  it("When TRUST_PROXY is set, then the per-address limit tells socket clients apart by X-Forwarded-For, as HTTP does", async () => {
    const node = await backend.startNode({ TRUST_PROXY: "true" });
    const { token } = await node.server.customTokens.create({ app: APP });
    const alice = await readyClient(node.url, { token, headers: { "x-forwarded-for": "203.0.113.10" } });
    const bob = await readyClient(node.url, { token, headers: { "x-forwarded-for": "198.51.100.20" } });
    const { key } = await call<{ key: string }>(alice, "challenge:new", { question: "q", answer: "right" });
    for (let i = 0; i < 10; i++)
      expect(await call(alice, "challenge:solve", { key, a: `wrong ${i}` })).to.deep.equal({ correct: false });
    expect(await call<{ error: string }>(alice, "challenge:solve", { key, a: "right" })).to.include({
      error: "rate_limited",
    });
    expect(await call(bob, "challenge:solve", { key, a: "wrong" })).to.deep.equal({ correct: false });
    // The same client over HTTP shares the socket's counter.
    const r = await challengeApi(node.url).solve(key, "right", { "x-forwarded-for": "203.0.113.10" });
    expect(r.status).to.equal(429);
  });
});
