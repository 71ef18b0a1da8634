// Bad input on the realtime channel (docs/errors.md, docs/realtime.md): property-based fuzzing of the socket events
// and the handshake. Random payloads for challenge:new and challenge:solve (wrong types, missing
// fields, huge strings, nested objects, arrays, null, numbers, binary buffers, extra arguments, no
// ack callback), random event names, malformed handshake auth, and raw Socket.IO packets that no
// well-behaved client sends. The node never crashes or logs an error, every ack is the success
// shape or the documented error object (docs/errors.md), the socket stays usable (or is closed for a documented reason: a
// message over 64 KB, a protocol violation), and stored data is unchanged (a challenge made before
// still reads and solves, its record is byte-for-byte the same, and the token still connects).
// FUZZ_RUNS scales the run (npm test: a few seconds; `npm run fuzz`: thousands); FUZZ_SEED replays.
import { expect } from "chai";
import fc from "fast-check";
import { io as connect, type Socket } from "socket.io-client";
import type { ReadyEvent } from "../src/protocol.js";
import { describeBackends } from "./support/backends.js";
import { ackWithin, readyClient, sleep, type ChannelClient } from "./support/channel.js";
import { fcOpts, fcOptsWithin, fuzzRuns } from "./support/fuzz.js";
import { challengeApi, http } from "./support/http.js";
import type { TestNode } from "./support/nodes.js";

const RUNS = fuzzRuns(200);
const APP = "test-app";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** Names socket.io-client refuses to emit (it throws, client-side). */
const RESERVED = new Set(["connect", "connect_error", "disconnect", "disconnecting", "newListener", "removeListener"]);
/** Over maxHttpBufferSize (64 KB) the server closes the connection: the one size-related close. */
const MESSAGE_LIMIT = 64 * 1024;
/** Longest wait for one ack (a loaded 2-core machine answers in milliseconds, at worst in a few seconds). */
const ACK_MS = 5000;
/** What a property leaves of the test's timeout to the checks after it (expectUnchanged). */
const AFTER_PROPERTY_MS = 8000;

/** The documented error object, with one of the codes a bad payload may get. */
function expectErrorObject(v: unknown, what: string): void {
  expect(v, what).to.be.an("object");
  expect(Object.keys(v as object).sort(), what).to.deep.equal(["error", "error_description"]);
  const e = v as { error: string; error_description: string };
  expect(e.error, what).to.be.oneOf(["invalid_request", "not_found", "rate_limited"]);
  expect(e.error_description, what).to.be.a("string").and.not.be.empty;
}

function expectAck(event: string, v: unknown, what: string): void {
  const keys = v !== null && typeof v === "object" ? Object.keys(v).sort() : [];
  if (event === "challenge:new" && keys.length === 1 && keys[0] === "key")
    expect((v as { key: string }).key, what).to.match(UUID);
  else if (event === "challenge:solve" && keys.length === 1 && keys[0] === "correct")
    expect((v as { correct: unknown }).correct, what).to.be.a("boolean");
  else expectErrorObject(v, `${what}: ack ${JSON.stringify(v)?.slice(0, 200)}`);
}

/** Rough size of the message a client sends for these arguments (buffers travel separately). */
function encodedSize(args: unknown[]): number {
  let max = 0;
  const json = JSON.stringify(args, (_k, v: unknown) => {
    if (
      v !== null &&
      typeof v === "object" &&
      (v as { type?: string }).type === "Buffer" &&
      Array.isArray((v as { data?: unknown }).data)
    ) {
      max = Math.max(max, (v as { data: unknown[] }).data.length);
      return { _placeholder: true, num: 0 };
    }
    return v;
  });
  return Math.max(Buffer.byteLength(json ?? ""), max);
}

function payloadArb(knownKey: string) {
  const text = fc.oneof(
    { weight: 6, arbitrary: fc.string({ maxLength: 30 }) },
    { weight: 4, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
    { weight: 2, arbitrary: fc.integer({ min: 190, max: 1100 }).map((n) => "é".repeat(n)) },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 90_000 }).map((n) => "x".repeat(n)) },
    { weight: 1, arbitrary: fc.constantFrom("", " ", "\u0000", "\ud800", "e\u0301", "a", "answer") },
  );
  const deep = fc.integer({ min: 1, max: 400 }).map((n) => {
    let v: unknown = "x";
    for (let i = 0; i < n; i++) v = i % 2 ? [v] : { question: v };
    return v;
  });
  const value = fc.oneof(
    { weight: 4, arbitrary: text },
    { weight: 3, arbitrary: fc.anything({ maxDepth: 3, maxKeys: 5 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(null, 0, -1, 60, 59, 2_592_001, 86_400.5, 1e308, NaN, Infinity, true, [], {}, ["q"], {
        toString: "x",
      }),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)) },
    { weight: 1, arbitrary: deep },
    { weight: 2, arbitrary: fc.oneof(fc.constant(knownKey), fc.constant(knownKey.toUpperCase()), fc.uuid()) },
  );
  const fields = fc.record(
    { question: value, answer: value, ttl: value, key: value, a: value, __proto__x: value, constructor: value },
    { requiredKeys: [] },
  );
  return fc.oneof(
    { weight: 5, arbitrary: fields },
    {
      weight: 3,
      arbitrary: fc.record(
        { question: text, answer: text, ttl: fc.option(fc.integer({ min: 0, max: 3_000_000 }), { nil: undefined }) },
        { requiredKeys: ["question", "answer"] },
      ),
    },
    { weight: 3, arbitrary: fc.record({ key: fc.oneof(fc.constant(knownKey), fc.uuid()), a: text }) },
    { weight: 3, arbitrary: value },
  );
}

function emitArb(knownKey: string) {
  const name = fc
    .oneof(
      { weight: 12, arbitrary: fc.constantFrom("challenge:new", "challenge:solve") },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          "ready",
          "challenge:result",
          "error",
          "message",
          "__proto__",
          "constructor",
          "hasOwnProperty",
          "challenge:new ",
          "CHALLENGE:NEW",
          "",
        ),
      },
      { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
      { weight: 1, arbitrary: fc.integer({ min: 100, max: 70_000 }).map((n) => "e".repeat(n)) },
    )
    .filter((n) => !RESERVED.has(n));
  return fc.record({
    event: name,
    args: fc.array(payloadArb(knownKey), { minLength: 0, maxLength: 3 }),
    ack: fc.boolean(),
  });
}

/** A handshake: `auth` (any value, usually an object) and maybe an Authorization header. */
function handshakeArb(token: string) {
  const since = fc.oneof(
    fc.constantFrom(
      "0-0",
      "1-1",
      "9999999999999999-0",
      "0000000000000001-0",
      "1-",
      "-1",
      "1-1-1",
      "1e3-0",
      " 1-0",
      "1-0\n",
      "",
    ),
    fc
      .tuple(fc.bigInt({ min: 0n, max: 10n ** 25n }), fc.bigInt({ min: 0n, max: 10n ** 25n }))
      .map(([a, b]) => `${a}-${b}`),
    fc.integer({ min: 10, max: 70_000 }).map((n) => "9".repeat(n) + "-0"),
    fc.anything({ maxDepth: 2 }),
  );
  const tok = fc.oneof(
    { weight: 3, arbitrary: fc.constant(token) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        `${token}x`,
        token.slice(0, -2),
        ` ${token}`,
        `Bearer ${token}`,
        token.toUpperCase(),
        "",
        "a.b.c",
        "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ0ZXN0LWFwcCJ9.",
      ),
    },
    { weight: 1, arbitrary: fc.integer({ min: 2000, max: 70_000 }).map((n) => "t".repeat(n)) },
    { weight: 2, arbitrary: fc.anything({ maxDepth: 2 }) },
  );
  // access_token: a user's socket (docs/realtime.md#users-sockets); none of these is a live one.
  const accessToken = fc.oneof(
    fc.constant(token),
    fc.constant("test-app.x"),
    fc.string(),
    fc.anything({ maxDepth: 1 }),
  );
  const authObject = fc.record(
    { token: tok, since, access_token: accessToken, extra: fc.anything({ maxDepth: 1 }) },
    { requiredKeys: [] },
  );
  const auth = fc.oneof(
    { weight: 6, arbitrary: authObject },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.string(),
        fc.integer(),
        fc.array(fc.string(), { maxLength: 3 }),
        fc.constant([token]),
        fc.boolean(),
      ),
    },
  );
  const header = fc.option(
    fc.oneof(
      fc.constant(`Bearer ${token}`),
      fc.constant(`bearer   ${token}`),
      fc.constant(`Basic ${token}`),
      fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 }),
    ),
    { nil: undefined },
  );
  return fc.record({ auth, header });
}

/** Well-formed packets among the raw ones: the connection must stay. */
const WELL_FORMED = (knownKey: string) =>
  new Set([
    "2" + JSON.stringify(["challenge:new", { question: "q", answer: "a" }, 1, 2, 3]),
    `21["challenge:solve",{"key":"${knownKey}","a":"wrong"}]`,
    '2["challenge:new",{}]',
    '2["nonsense",1,2,3]',
    '2["challenge:solve"]',
  ]);

/** Raw Socket.IO packets after the engine.io "message" type, on an authenticated connection. */
function rawArb(knownKey: string) {
  const deepBinary = fc
    .integer({ min: 1000, max: 20_000 })
    .map((n) => `51-["challenge:new",${"[".repeat(n)}{"_placeholder":true,"num":0}${"]".repeat(n)}]`);
  const fixed = fc.constantFrom<Array<string | Buffer>>(
    ['2["challenge:new"'],
    ["2["],
    ["2"],
    ["2[]"],
    ["2[1,2]"],
    ["2[null]"],
    ['2{"a":1}'],
    ['2"str"'],
    [`21["challenge:solve",{"key":"${knownKey}","a":"wrong"}]`],
    ['299999999999999999999999["challenge:new",{"question":"q","answer":"a"}]'],
    ['2-1["challenge:new"]'],
    ['21.5["challenge:new",{}]'],
    ["9"],
    ["0"],
    ['0{"token":1}'],
    ["0/other,"],
    ['2/admin,["challenge:new",{}]'],
    ['3["x"]'],
    ["31[1]"],
    ['4"x"'],
    ['51-["challenge:new",{"_placeholder":true,"num":0}]'],
    ['51-["challenge:new",{"_placeholder":true,"num":7}]', Buffer.from([1, 2, 3])],
    ['51-["challenge:new",{"_placeholder":true,"num":"0"}]', Buffer.from([1])],
    [
      '52-["challenge:solve",{"key":{"_placeholder":true,"num":0},"a":{"_placeholder":true,"num":1}}]',
      Buffer.from("k"),
      Buffer.from("a"),
    ],
    ['5abc-["challenge:new"]'],
    ["599999999999999999-[]"],
    [Buffer.from([0xff, 0x00, 0x01])],
    ["2" + JSON.stringify(["challenge:new", { question: "q", answer: "a" }, 1, 2, 3])],
    // Reserved names: were they dispatched, the server's own "disconnect" handler would close the
    // session of a socket that is still connected.
    ['2["disconnect"]'],
    ['2["disconnect","transport close"]'],
    ['2["disconnecting"]'],
    ['2["newListener","challenge:result"]'],
    ['2["connect"]'],
    ['51-["disconnect",{"_placeholder":true,"num":0}]', Buffer.from([1])],
    ...[...WELL_FORMED(knownKey)].map((f) => [f]),
  );
  const generated = fc
    .tuple(
      fc.constantFrom("2", "21", "5", "3", "0", "1", "6"),
      fc.oneof(fc.json({ maxDepth: 3 }), fc.string({ maxLength: 40 })),
    )
    .map(([t, body]) => [t + body]);
  return fc.oneof(
    { weight: 4, arbitrary: fixed },
    { weight: 3, arbitrary: generated },
    { weight: 1, arbitrary: deepBinary.map((s) => [s]) },
  );
}

describeBackends("Fuzzing the realtime channel with bad input", (backend) => {
  let node: TestNode;
  let token: string;
  let key: string;
  const question = "Welche Farbe hat der Himmel? 🌤";
  const answer = "blau ✓";
  let stored: string | undefined;

  beforeEach(async () => {
    node = await backend.startNode({
      LOG_LEVEL: "warn",
      CHANNEL_RATE_LIMIT: "10000",
      SOLVE_LIMIT_PER_ADDRESS: "1000000",
      SOLVE_LIMIT_PER_KEY: "1000000",
    });
    ({ token } = await node.server.customTokens.create({ app: APP }));
    key = await challengeApi(node.url).createKey(question, answer, { authorization: `Bearer ${token}` });
    stored = backend.redis?.cli("GET", `sigil:ch:{${key}}`);
  });

  /** The node is alive, nothing it stored changed, the token connects and the channel works. */
  async function expectUnchanged(): Promise<void> {
    expect((await http(node.url, "/healthz")).status).to.equal(200);
    const api = challengeApi(node.url);
    expect((await api.question(key)).text).to.equal(question);
    if (backend.redis) expect(backend.redis.cli("GET", `sigil:ch:{${key}}`)).to.equal(stored);
    const c = await readyClient(node.url, { token });
    const sock = c.socket as unknown as Socket;
    expect(await ackWithin(sock, ACK_MS, "challenge:solve", { key, a: "wrong" })).to.deep.equal({ correct: false });
    expect(await ackWithin(sock, ACK_MS, "challenge:solve", { key, a: answer })).to.deep.equal({ correct: true });
    const events = await c.waitEvents(2);
    expect(events.slice(-2).map((e) => [e.key, e.correct])).to.deep.equal([
      [key, false],
      [key, true],
    ]);
    c.close();
    const errors = node.logs.filter((l) => /"level":"(error|fatal)"/.test(l));
    expect(errors, "error log lines").to.deep.equal([]);
    // Every socket is gone, and the gauge says so (no session closed twice or left behind). The
    // server hears of the last close a moment later: poll, up to a deadline.
    const until = Date.now() + ACK_MS;
    let gauge = "";
    while (Date.now() < until) {
      gauge = /^sigil_channel_sockets (\S+)$/m.exec((await http(node.url, "/metrics")).text)?.[1] ?? "missing";
      if (gauge === "0") break;
      await sleep(50);
    }
    expect(gauge, "sigil_channel_sockets after every client closed").to.equal("0");
  }

  it("When random events and payloads arrive on a socket, then every ack is a success or a documented error and the socket stays usable", async function () {
    this.timeout(Math.max(30_000, RUNS * 150));
    // This test's node, token and key: the property must never reach a later test's (beforeEach
    // reassigns the suite's variables).
    const { url } = node;
    const tok = token;
    const known = key;
    let c: ChannelClient = await readyClient(url, { token: tok });
    const tally = { acks: 0, errors: 0, successes: 0, bigCloses: 0 };
    /** Acks of emits the property does not wait for, that were not what they must be. */
    const strayAcks: string[] = [];
    await fc.assert(
      fc.asyncProperty(fc.array(emitArb(known), { minLength: 1, maxLength: 4 }), async (emits) => {
        if (!c.socket.connected) c = await readyClient(url, { token: tok });
        const sock = c.socket as unknown as Socket;
        let big = false;
        for (const e of emits) {
          const what = `${e.event.slice(0, 40)}(${JSON.stringify(e.args)?.slice(0, 200)})${e.ack ? " with ack" : ""}`;
          const size = encodedSize([e.event, ...e.args]);
          if (size > MESSAGE_LIMIT - 200) big = true;
          const isKnown = e.event === "challenge:new" || e.event === "challenge:solve";
          if (e.ack && isKnown && !big) {
            // Nothing over 64 KB went before it: the server must answer.
            const reply = await ackWithin(sock, ACK_MS, e.event, ...e.args);
            tally.acks++;
            expectAck(e.event, reply, what);
            if (reply && typeof reply === "object" && "error" in reply) tally.errors++;
            else tally.successes++;
          } else if (e.ack) {
            // No listener answers other events; a reply would be a bug. After a message over 64 KB
            // the connection may be gone and the ack never comes: nothing waits for it.
            sock.emit(e.event, ...e.args, (reply: unknown) => {
              if (reply instanceof Error) return; // the client's own "socket has been disconnected"
              if (!isKnown) strayAcks.push(`an ack for ${what}: ${JSON.stringify(reply)?.slice(0, 200)}`);
              else {
                try {
                  expectAck(e.event, reply, what);
                } catch (err) {
                  strayAcks.push((err as Error).message);
                }
              }
            });
          } else {
            sock.emit(e.event, ...e.args);
          }
        }
        // The same socket still answers: a probe sent after everything above. The server reads
        // the connection's messages in order, so over 64 KB (maxHttpBufferSize) it closes the
        // connection before it reads the probe; else it answers it. (No sleep can tell: under
        // load the close reaches the client any time later.)
        const probe = await ackWithin(sock, ACK_MS, "challenge:solve", { key: known, a: "wrong" }).then(
          (reply) => ({ reply }),
          (err: Error) => ({ err }),
        );
        if ("err" in probe) {
          if (!big) throw probe.err;
          // A message over 64 KB closed the connection; the next run reconnects.
          expect(probe.err.message, "the probe after a message over 64 KB").to.match(/socket has been disconnected$/);
          await c.waitDisconnect(ACK_MS);
          tally.bigCloses++;
          expect(c.disconnects, "the reason a big message closed the socket").to.satisfy((d: string[]) =>
            d.every((r) => r === "transport close" || r === "transport error"),
          );
          return;
        }
        expect(probe.reply, `the probe after ${emits.map((e) => e.event.slice(0, 30)).join(", ")}`).to.deep.equal({
          correct: false,
        });
        expect(c.socket.connected, `connected after ${emits.map((e) => e.event.slice(0, 30)).join(", ")}`).to.equal(
          true,
        );
        expect(c.disconnects).to.deep.equal([]);
        expect(strayAcks).to.deep.equal([]);
      }),
      fcOptsWithin(RUNS, this.timeout() - AFTER_PROPERTY_MS),
    );
    c.close();
    expect(strayAcks, "acks of emits the property did not wait for").to.deep.equal([]);
    expect(tally.acks).to.be.greaterThan(RUNS / 2);
    expect(tally.successes).to.be.greaterThan(0);
    if (process.env.FUZZ_VERBOSE) console.log("      events:", tally);
    await expectUnchanged();
  });

  it("When random events come faster than CHANNEL_RATE_LIMIT, then the extra ones ack rate_limited and the socket stays connected", async () => {
    const slow = await backend.startNode({ LOG_LEVEL: "warn", CHANNEL_RATE_LIMIT: "5" });
    // Its own token: the embedded store is per node.
    const c = await readyClient(slow.url, { token: (await slow.server.customTokens.create({ app: APP })).token });
    const sock = c.socket as unknown as Socket;
    const emits = fc
      .sample(
        emitArb(key).filter((e) => e.event === "challenge:new" || e.event === "challenge:solve"),
        fcOpts(30),
      )
      .filter((e) => encodedSize([e.event, ...e.args]) < MESSAGE_LIMIT - 200);
    const replies = await Promise.all(
      emits.map((e) =>
        sock
          .timeout(3000)
          .emitWithAck(e.event, ...e.args)
          .then((r: unknown) => [e, r] as const),
      ),
    );
    for (const [e, r] of replies) expectAck(e.event, r, `${e.event}(${JSON.stringify(e.args)?.slice(0, 200)})`);
    expect(replies.filter(([, r]) => (r as { error?: string }).error === "rate_limited").length).to.be.greaterThan(0);
    expect(c.socket.connected).to.equal(true);
    expect(c.disconnects).to.deep.equal([]);
  });

  it("When the handshake auth is malformed, then the socket connects only with the valid token, else is refused with invalid_token", async function () {
    this.timeout(Math.max(30_000, RUNS * 100));
    const { url } = node;
    const tok = token;
    const tally = { connected: 0, refused: 0, closed: 0 };
    await fc.assert(
      fc.asyncProperty(handshakeArb(tok), async ({ auth, header }) => {
        const what = `auth ${JSON.stringify(auth)?.slice(0, 200)} header ${JSON.stringify(header)?.slice(0, 100)}`;
        const isObject = auth !== null && typeof auth === "object" && !Array.isArray(auth);
        const a = (isObject ? auth : {}) as Record<string, unknown>;
        const big = (JSON.stringify(auth) ?? "").length > MESSAGE_LIMIT - 200;
        const headerValid =
          header !== undefined && /^bearer +/i.test(header) && header.replace(/^bearer +/i, "") === tok;
        // auth.token wins; without it, an access_token (none here is live) is what is checked.
        const valid =
          isObject &&
          !big &&
          (a.token === tok || (a.token === undefined && a.access_token === undefined && headerValid));
        const sock = connect(url, {
          path: "/socket.io/",
          transports: ["websocket"],
          forceNew: true,
          reconnection: false,
          timeout: 3000,
          auth: (cb) => cb(auth as object),
          ...(header !== undefined ? { extraHeaders: { authorization: header } } : {}),
        });
        const readies: ReadyEvent[] = [];
        const outcome = await new Promise<{ kind: "ready" | "refused" | "closed"; err?: Error & { data?: unknown } }>(
          (resolve) => {
            const t = setTimeout(() => resolve({ kind: "closed" }), 4000);
            sock.on("ready", (r: ReadyEvent) => (readies.push(r), clearTimeout(t), resolve({ kind: "ready" })));
            sock.on(
              "connect_error",
              (err: Error & { data?: unknown }) => (
                clearTimeout(t),
                resolve({ kind: err.message === "invalid_token" ? "refused" : "closed", err })
              ),
            );
            // Socket.IO closes the transport on a CONNECT packet it cannot take (not an object, over 64 KB).
            sock.on("disconnect", () => (clearTimeout(t), resolve({ kind: "closed" })));
          },
        );
        sock.disconnect();
        tally[outcome.kind === "ready" ? "connected" : outcome.kind]++;
        if (valid) {
          expect(outcome.kind, what).to.equal("ready");
          const r = readies[0]!;
          expect(r.app).to.equal(APP);
          // The app has no event yet: no since can be "everything after it replayed" (an id after
          // 0-0 was never issued; 0-0 itself comes before a history that does not exist).
          expect(r.recovered, what).to.equal(false);
        } else if (isObject && !big) {
          expect(outcome.kind, what).to.equal("refused");
          const data = outcome.err!.data as { error?: unknown; error_description?: unknown };
          expect(Object.keys(data ?? {}).sort(), what).to.deep.equal(["error", "error_description"]);
          expect(data.error, what).to.equal("invalid_token");
          expect(data.error_description, what).to.be.a("string").and.not.be.empty;
        } else {
          // Not an object, or over 64 KB: Socket.IO itself refuses the CONNECT packet (or, for a
          // falsy value, the client sends none, and the header decides).
          if (outcome.kind === "ready") expect(headerValid || (isObject && a.token === tok), what).to.equal(true);
          if (outcome.kind === "refused")
            expect((outcome.err!.data as { error?: string }).error, what).to.equal("invalid_token");
        }
      }),
      fcOptsWithin(Math.ceil(RUNS / 2), this.timeout() - AFTER_PROPERTY_MS),
    );
    expect(tally.connected).to.be.greaterThan(0);
    expect(tally.refused).to.be.greaterThan(0);
    if (process.env.FUZZ_VERBOSE) console.log("      handshakes:", tally);
    await expectUnchanged();
  });

  it("When raw malformed Socket.IO packets arrive, then the node lives and the connection stays usable or is closed as a protocol violation", async function () {
    this.timeout(Math.max(30_000, RUNS * 150));
    const { url } = node;
    const tok = token;
    const known = key;
    const tally = { kept: 0, closed: 0 };
    await fc.assert(
      fc.asyncProperty(rawArb(known), async (frames) => {
        const c = await readyClient(url, { token: tok });
        const engine = (c.socket as unknown as Socket).io.engine as unknown as { send(d: string | Buffer): void };
        for (const f of frames) engine.send(f);
        await sleep(20);
        const wellFormed = frames.length === 1 && typeof frames[0] === "string" && WELL_FORMED(known).has(frames[0]);
        if (wellFormed)
          expect(c.socket.connected, `a well-formed packet closed the connection: ${frames[0]}`).to.equal(true);
        if (c.socket.connected) {
          // Still connected: it still answers (a half-sent binary packet may hold the next one back).
          const pending =
            frames.length > 0 && typeof frames[0] === "string" && /^5/.test(frames[0]) && frames.length === 1;
          if (!pending) {
            const seen = c.events.length;
            const reply = await ackWithin(c.socket, ACK_MS, "challenge:solve", { key: known, a: "wrong" }).catch(
              (e: Error) => e,
            );
            // (After a well-formed packet the probe must be answered: a close that came after the
            // 20 ms above is no excuse.)
            if (c.socket.connected || wellFormed) {
              expect(reply, JSON.stringify(frames)).to.deep.equal({ correct: false });
              // And its session still delivers: the attempt comes back as an event.
              const events = await c.waitEvents(seen + 1);
              expect(events[events.length - 1], JSON.stringify(frames)).to.include({ key: known, correct: false });
            }
          }
          tally.kept++;
        } else {
          tally.closed++;
          for (const r of c.disconnects)
            expect(r, JSON.stringify(frames).slice(0, 200)).to.be.oneOf([
              "transport close",
              "transport error",
              "io server disconnect",
              "parse error",
            ]);
        }
        c.close();
      }),
      fcOptsWithin(Math.ceil(RUNS / 3), this.timeout() - AFTER_PROPERTY_MS),
    );
    if (process.env.FUZZ_VERBOSE) console.log("      raw packets:", tally);
    await expectUnchanged();
  });
});
