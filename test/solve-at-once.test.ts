// docs/http-api.md#challenges under concurrency: answers sent at once, over HTTP and the socket, on the embedded
// store and on Redis. Right answers never count; wrong ones never get past a limit; every
// counted attempt on an owned challenge is exactly one event.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { call, readyClient, type ChannelClient } from "./support/channel.js";
import { challengeApi, type TestResponse } from "./support/http.js";

const APP = "test-app";
const atOnce = <T>(n: number, f: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));

function tally(rs: TestResponse[]) {
  return {
    right: rs.filter((r) => r.status === 200 && r.json?.correct === true).length,
    wrong: rs.filter((r) => r.status === 200 && r.json?.correct === false).length,
    limited: rs.filter((r) => r.status === 429).length,
    other: rs.filter((r) => r.status !== 200 && r.status !== 429).map((r) => `${r.status} ${r.text}`),
  };
}

function expectRetryAfter(rs: TestResponse[]) {
  for (const r of rs.filter((x) => x.status === 429)) {
    expect(r.json.error).to.equal("rate_limited");
    expect(Number(r.headers["retry-after"])).to.be.within(1, 3600);
  }
}

describeBackends("Answers sent at once over HTTP", (backend) => {
  let api: ReturnType<typeof challengeApi>;
  beforeEach(async () => {
    api = challengeApi((await backend.startNode({ TRUST_PROXY: "true" })).url);
  });

  it("When one address sends 60 right answers at once, then all are {correct:true}, and the right answer still is afterwards", async () => {
    const key = await api.createKey("q", "right");
    const t = tally(await atOnce(60, () => api.solve(key, "right")));
    expect(t).to.deep.equal({ right: 60, wrong: 0, limited: 0, other: [] });
    expect((await api.solve(key, "right")).json).to.deep.equal({ correct: true });
    // Nothing was counted: the address still has all 10 wrong answers.
    const after = tally(await atOnce(10, (i) => api.solve(key, `wrong ${i}`)));
    expect(after).to.deep.equal({ right: 0, wrong: 10, limited: 0, other: [] });
  });

  it("When one address sends 60 wrong answers at once, then exactly 10 are {correct:false} and 50 are 429 with Retry-After", async () => {
    const key = await api.createKey("q", "right");
    const rs = await atOnce(60, (i) => api.solve(key, `wrong ${i}`));
    expect(tally(rs)).to.deep.equal({ right: 0, wrong: 10, limited: 50, other: [] });
    expectRetryAfter(rs);
    const right = await api.solve(key, "right");
    expect(right.status, "limited: the right answer is refused too").to.equal(429);
    expectRetryAfter([right]);
  });

  it("When right answers are sent at once with fewer wrong ones than the limit, then every right one is {correct:true}", async () => {
    const key = await api.createKey("q", "right");
    const rs = await atOnce(59, (i) => (i % 6 === 5 ? api.solve(key, `wrong ${i}`) : api.solve(key, "right")));
    expect(tally(rs)).to.deep.equal({ right: 50, wrong: 9, limited: 0, other: [] });
    expect((await api.solve(key, "wrong")).json, "the 10th wrong answer still counts").to.deep.equal({
      correct: false,
    });
    expect((await api.solve(key, "right")).status).to.equal(429);
  });

  it("When right and wrong answers are sent at once past the limit, then exactly 10 wrong count and a right one is never false", async () => {
    const key = await api.createKey("q", "right");
    const rs = await atOnce(60, (i) => (i % 3 === 0 ? api.solve(key, `wrong ${i}`) : api.solve(key, "right")));
    const wrongs = tally(rs.filter((_, i) => i % 3 === 0));
    const rights = tally(rs.filter((_, i) => i % 3 !== 0));
    expect(wrongs).to.deep.equal({ right: 0, wrong: 10, limited: 10, other: [] });
    expect(rights.wrong).to.equal(0);
    expect(rights.right + rights.limited).to.equal(40);
    expectRetryAfter(rs);
    expect((await api.solve(key, "right")).status).to.equal(429);
  });

  it("When many addresses send wrong answers at once, then exactly the per-key limit (100) count and then every address is refused", async () => {
    const key = await api.createKey("q", "right");
    const from = (i: number) => ({ "x-forwarded-for": `203.0.113.${i}` });
    // 12 addresses × 10 wrong: each address is within its own limit; the key's limit is 100.
    const rs = await atOnce(120, (i) => api.solve(key, `wrong ${i}`, from(1 + (i % 12))));
    expect(tally(rs)).to.deep.equal({ right: 0, wrong: 100, limited: 20, other: [] });
    expectRetryAfter(rs);
    const fresh = await api.solve(key, "right", from(200));
    expect(fresh.status).to.equal(429);
    expectRetryAfter([fresh]);
  });

  it("When many addresses send right answers at once, then all are {correct:true}", async () => {
    const key = await api.createKey("q", "right");
    const rs = await atOnce(60, (i) => api.solve(key, "right", { "x-forwarded-for": `198.51.100.${1 + (i % 20)}` }));
    expect(tally(rs)).to.deep.equal({ right: 60, wrong: 0, limited: 0, other: [] });
  });
});

describeBackends("Answers sent at once over the socket", (backend) => {
  let url: string;
  let token: string;
  beforeEach(async () => {
    // The per-socket event limit is raised so that it is the solve limits that answer.
    const node = await backend.startNode({ CHANNEL_RATE_LIMIT: "1000" });
    url = node.url;
    ({ token } = await node.server.customTokens.create({ app: APP }));
  });

  type Ack = { correct?: boolean; error?: string };
  const count = (acks: Ack[]) => ({
    right: acks.filter((a) => a.correct === true).length,
    wrong: acks.filter((a) => a.correct === false).length,
    limited: acks.filter((a) => a.error === "rate_limited").length,
  });

  it("When a socket sends 60 right answers at once, then all are {correct:true}, and 60 wrong ones at once are 10 false and 50 rate_limited", async () => {
    const c = await readyClient(url, { token });
    const { key } = await call<{ key: string }>(c, "challenge:new", { question: "q", answer: "right" });
    expect(count(await atOnce(60, () => call<Ack>(c, "challenge:solve", { key, a: "right" })))).to.deep.equal({
      right: 60,
      wrong: 0,
      limited: 0,
    });
    expect(count(await atOnce(60, (i) => call<Ack>(c, "challenge:solve", { key, a: `wrong ${i}` })))).to.deep.equal({
      right: 0,
      wrong: 10,
      limited: 50,
    });
    expect(await call(c, "challenge:solve", { key, a: "right" })).to.include({ error: "rate_limited" });
  });

  it("When HTTP and socket attempts on an owned challenge come at once, then the app gets exactly one event per counted attempt", async () => {
    const watcher = await readyClient(url, { token });
    const solver = await readyClient(url, { token });
    const api = challengeApi(url);
    const key = await api.createKey("q", "right", { authorization: `Bearer ${token}` });
    // The socket and HTTP clients share one address (127.0.0.1): its 10 wrong answers are split
    // between them, and the rest are refused without an event.
    const [http, socket] = await Promise.all([
      atOnce(40, (i) => api.solve(key, i % 2 ? "right" : `wrong ${i}`)),
      atOnce(40, (i) => call<Ack>(solver, "challenge:solve", { key, a: i % 2 ? "right" : `wrong s${i}` })),
    ]);
    const h = tally(http);
    const s = count(socket);
    expect(h.other).to.deep.equal([]);
    expect(h.wrong + s.wrong).to.equal(10);
    expect(h.right + h.wrong + h.limited + s.right + s.wrong + s.limited).to.equal(80);
    const counted = h.right + h.wrong + s.right + s.wrong;
    await expectEvents(watcher, key, counted, { right: h.right + s.right, wrong: 10 });
  });

  async function expectEvents(
    c: ChannelClient,
    key: string,
    counted: number,
    outcome: { right: number; wrong: number },
  ) {
    // Events arrive in order: once a later marker arrived, every earlier event has.
    const marker = await challengeApi(url).createKey("marker", "m", { authorization: `Bearer ${token}` });
    await challengeApi(url).solve(marker, "m");
    const all = await c.waitEvents(counted + 1, 5000);
    expect(all.at(-1)?.key).to.equal(marker);
    const mine = all.filter((e) => e.key === key);
    expect(mine).to.have.length(counted);
    expect({ right: mine.filter((e) => e.correct).length, wrong: mine.filter((e) => !e.correct).length }).to.deep.equal(
      outcome,
    );
    expect(new Set(all.map((e) => e.id)).size).to.equal(all.length);
  }
});
