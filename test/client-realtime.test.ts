// The client's realtime connection (client/src/realtime.ts) against the live channel
// (docs/realtime.md): CUSTOM TOKEN, typed events, acks as promises, and resume with `since` after
// server-side disconnects and dropped transports, on one node (two nodes: client-nodes.test.ts).
import { expect } from "chai";
import { createClient, SigilError, type RealtimeConnection, type SigilClient } from "../client/src/index.js";
import { describeBackends } from "./support/backends.js";
import { rejection } from "./support/client-errors.js";
import { record } from "./support/client-realtime.js";
import type { TestNode } from "./support/nodes.js";

const APP = "test-app";

const open: RealtimeConnection[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

describeBackends("Client: realtime", (backend) => {
  let node: TestNode;
  let sigil: SigilClient;
  let token: string;
  let tokenId: string;
  beforeEach(async () => {
    node = await backend.startNode();
    sigil = createClient({ baseUrl: node.url });
    ({ token, id: tokenId } = await node.server.customTokens.create({ app: APP, name: "client tests" }));
  });
  const connect = (opts: { since?: string; token?: string } = {}) => {
    const conn = sigil.connect({
      token: opts.token ?? token,
      ...(opts.since ? { since: opts.since } : {}),
      socket: { reconnectionDelay: 50, reconnectionDelayMax: 200 },
    });
    open.push(conn);
    return conn;
  };

  it("When an app connects with its CUSTOM TOKEN, then ready names the app, and each attempt arrives as a typed challenge:result", async () => {
    const conn = connect();
    const r = record(conn);
    expect(await r.readyCount(1)).to.deep.equal({ app: APP, recovered: false });
    const { key } = await sigil.challenges.create({ question: "日本の首都は？", answer: "東京", token });
    await sigil.challenges.solve(key, "大阪");
    await sigil.challenges.solve(key, "東京");
    const events = await r.eventCount(2);
    expect(events.map((e) => [e.key, e.correct])).to.deep.equal([
      [key, false],
      [key, true],
    ]);
    expect(conn.lastEventId).to.equal(events[1]!.id);
  });

  it("When the app uses challenge:new and challenge:solve, then they resolve as promises and the attempt is an event", async () => {
    const conn = connect();
    const r = record(conn);
    await r.readyCount(1);
    const { key } = await conn.createChallenge({ question: "Größe?", answer: "groß", ttl: 600 });
    expect(await sigil.challenges.question(key)).to.equal("Größe?");
    expect(await conn.solve(key, "klein")).to.deep.equal({ correct: false });
    expect(await conn.solve(key, "groß")).to.deep.equal({ correct: true });
    expect((await r.eventCount(2)).map((e) => e.correct)).to.deep.equal([false, true]);
  });

  it("When a payload is bad, then the ack's error object rejects as a SigilError", async () => {
    const conn = connect();
    await record(conn).readyCount(1);
    expect(await rejection(conn.createChallenge({ question: "", answer: "a" }))).to.include({
      code: "invalid_request",
      status: 400,
    });
  });

  it("When the token is unknown, then the connection reports error invalid_token and does not retry", async () => {
    const conn = connect({ token: "not-a-token" });
    const r = record(conn);
    const [e] = await r.until(() => r.errors.length > 0 && r.errors, "error");
    expect(e).to.be.instanceOf(SigilError);
    expect(e).to.include({ code: "invalid_token", status: 401 });
    await new Promise((res) => setTimeout(res, 300));
    expect(r.errors).to.have.length(1);
    expect(r.readies).to.deep.equal([]);
  });

  it("When the server disconnects the socket, then the client comes back with since and misses nothing, once, in order", async () => {
    const conn = connect();
    const r = record(conn);
    await r.readyCount(1);
    const { key } = await sigil.challenges.create({ question: "q", answer: "right", token });
    await sigil.challenges.solve(key, "w1");
    await r.eventCount(1);
    node.server.io.disconnectSockets(true);
    await r.until(() => r.disconnects.includes("io server disconnect") || undefined, "the disconnect");
    // Attempts while the app is away are replayed after the reconnect.
    await sigil.challenges.solve(key, "w2");
    await sigil.challenges.solve(key, "w3");
    expect(await r.readyCount(2)).to.deep.equal({ app: APP, recovered: true });
    await sigil.challenges.solve(key, "right");
    await r.eventCount(4);
    const marker = (await sigil.challenges.create({ question: "marker", answer: "m", token })).key;
    await sigil.challenges.solve(marker, "m");
    const events = await r.eventsBefore(marker);
    expect(events.map((e) => e.correct)).to.deep.equal([false, false, false, true]);
    expect(new Set(events.map((e) => e.id)).size).to.equal(4);
    expect(conn.lastEventId, "the last delivered: the marker's").to.equal(r.events[4]!.id);
  });

  it("When the transport drops, then Socket.IO reconnects with since and the replay is complete", async () => {
    const conn = connect();
    const r = record(conn);
    await r.readyCount(1);
    const { key } = await sigil.challenges.create({ question: "q", answer: "a", token });
    await sigil.challenges.solve(key, "x1");
    await r.eventCount(1);
    for (const [, s] of node.server.io.of("/").sockets) s.conn.close();
    await sigil.challenges.solve(key, "x2");
    expect(await r.readyCount(2)).to.deep.equal({ app: APP, recovered: true });
    await r.eventCount(2);
    const marker = (await sigil.challenges.create({ question: "marker", answer: "m", token })).key;
    await sigil.challenges.solve(marker, "m");
    expect((await r.eventsBefore(marker)).map((e) => e.correct)).to.deep.equal([false, false]);
  });

  it("When a run starts with a saved since, then it receives what came after it and ready says recovered", async () => {
    const first = connect();
    const r1 = record(first);
    await r1.readyCount(1);
    const { key } = await sigil.challenges.create({ question: "q", answer: "a", token });
    await sigil.challenges.solve(key, "1");
    const [e1] = await r1.eventCount(1);
    first.close();
    await sigil.challenges.solve(key, "2");
    await sigil.challenges.solve(key, "a");
    const second = connect({ since: e1!.id });
    const r2 = record(second);
    expect(await r2.readyCount(1)).to.deep.equal({ app: APP, recovered: true });
    expect((await r2.eventCount(2)).map((e) => e.correct)).to.deep.equal([false, true]);
  });

  it("When the token is revoked, then the connection ends with error invalid_token", async () => {
    const conn = connect();
    const r = record(conn);
    await r.readyCount(1);
    await node.server.customTokens.revoke(APP, tokenId);
    const [e] = await r.until(() => r.errors.length > 0 && r.errors, "error after revocation");
    expect(e).to.include({ code: "invalid_token" });
    expect(conn.connected).to.equal(false);
  });

  it("When the app closes the connection, then later calls reject with closed", async () => {
    const conn = connect();
    await record(conn).readyCount(1);
    conn.close();
    try {
      await conn.solve("0b7c3d38-2b8a-4f5e-9a39-6a0d2d0c1e11", "a");
      expect.fail("no error");
    } catch (err) {
      expect(err).to.include({ code: "closed" });
    }
  });
});
