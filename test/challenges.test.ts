// docs/http-api.md#challenges and the challenge lines of docs/errors.md, on the embedded store and on Redis.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { challengeApi, http, utf8Header } from "./support/http.js";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describeBackends("Challenges", (backend) => {
  let base: string;
  let api: ReturnType<typeof challengeApi>;
  beforeEach(async () => {
    const node = await backend.startNode();
    base = node.url;
    api = challengeApi(base);
  });

  describe("When a caller creates a challenge", () => {
    it("then it gets 201 with exactly {key} holding a UUID v4", async () => {
      const r = await api.create("What is 6 x 7?", "42");
      expect(r.status).to.equal(201);
      expect(r.headers["content-type"]).to.match(/^application\/json/);
      expect(Object.keys(r.json)).to.deep.equal(["key"]);
      expect(r.json.key).to.match(UUID_V4);
    });

    it("then two challenges get different keys", async () => {
      const a = await api.createKey("q", "a");
      const b = await api.createKey("q", "a");
      expect(a).to.not.equal(b);
    });

    it("then the question reads back as plain text, exactly as given", async () => {
      const key = await api.createKey("What is 6 x 7?", "42");
      const r = await api.question(key);
      expect(r.status).to.equal(200);
      expect(r.headers["content-type"]).to.equal("text/plain; charset=utf-8");
      expect(r.text).to.equal("What is 6 x 7?");
    });

    for (const text of ["é", "日本の首都は？", "🦊 fox 🦊", "Ünïcödé ∑ ≠ ✓"]) {
      it(`then raw UTF-8 header values round-trip exactly: ${text}`, async () => {
        const key = await api.createKey(text, text);
        expect((await api.question(key)).text).to.equal(text);
        expect((await api.solve(key, text)).json).to.deep.equal({ correct: true });
      });
    }

    it("then values may come from a JSON body when the headers are absent", async () => {
      const r = await http(base, "/challenge/new", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ question: "  Größe?  ", answer: "groß", ttl: 120 }),
      });
      expect(r.status).to.equal(201);
      expect((await api.question(r.json.key)).text).to.equal("  Größe?  ");
      const s = await http(base, "/challenge/solve", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ key: r.json.key, a: "groß" }),
      });
      expect(s.json).to.deep.equal({ correct: true });
    });

    it("then a header wins over the same field in the body", async () => {
      const r = await http(base, "/challenge/new", {
        method: "POST",
        headers: { "content-type": "application/json", question: "from header", answer: "x" },
        body: JSON.stringify({ question: "from body" }),
      });
      expect((await api.question(r.json.key)).text).to.equal("from header");
    });

    it("then lengths are counted in code points: 1000 emoji are a valid question, 1001 are not", async () => {
      expect((await api.create("😀".repeat(1000), "a")).status).to.equal(201);
      const r = await api.create("😀".repeat(1001), "a");
      expect(r.status).to.equal(400);
      expect(r.json.error).to.equal("invalid_request");
    });

    it("then an answer of 200 characters is accepted and one of 201 is refused", async () => {
      expect((await api.create("q", "x".repeat(200))).status).to.equal(201);
      expect((await api.create("q", "x".repeat(201))).status).to.equal(400);
    });

    for (const [name, headers] of [
      ["question missing", { answer: "a" }],
      ["answer missing", { question: "q" }],
      ["question empty", { question: "", answer: "a" }],
      ["answer empty", { question: "q", answer: "" }],
      ["ttl below 60", { question: "q", answer: "a", ttl: "59" }],
      ["ttl above 30 days", { question: "q", answer: "a", ttl: "2592001" }],
      ["ttl not a number", { question: "q", answer: "a", ttl: "soon" }],
      ["ttl negative", { question: "q", answer: "a", ttl: "-60" }],
    ] as Array<[string, Record<string, string>]>) {
      it(`then ${name} is 400 invalid_request with a description`, async () => {
        const r = await http(base, "/challenge/new", { method: "POST", headers });
        expect(r.status).to.equal(400);
        expect(r.headers["content-type"]).to.match(/^application\/json/);
        expect(r.json.error).to.equal("invalid_request");
        expect(r.json.error_description).to.be.a("string").and.not.be.empty;
      });
    }

    it("then ttl 60 and ttl 2592000 are accepted", async () => {
      expect((await api.create("q", "a", { ttl: "60" })).status).to.equal(201);
      expect((await api.create("q", "a", { ttl: "2592000" })).status).to.equal(201);
    });

    it("then a header that is not valid UTF-8 is 400, not garbage stored", async () => {
      const r = await http(base, "/challenge/new", {
        method: "POST",
        headers: { question: "\xff\xfe broken", answer: "a" },
      });
      expect(r.status).to.equal(400);
      expect(r.json.error).to.equal("invalid_request");
    });

    it("then a body that is JSON but not an object is 400", async () => {
      const r = await http(base, "/challenge/new", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "[1,2]",
      });
      expect(r.status).to.equal(400);
    });

    it("then a present but unknown custom token is 401 invalid_token, not an anonymous challenge", async () => {
      const r = await api.create("q", "a", { authorization: "Bearer not-a-real-token" });
      expect(r.status).to.equal(401);
      expect(r.json.error).to.equal("invalid_token");
      expect(r.headers["www-authenticate"]).to.match(/^Bearer error="invalid_token"/);
    });
  });

  describe("When someone reads a question", () => {
    it("then an unknown key is 404 not_found in JSON", async () => {
      const r = await api.question("0b7c3d38-2b8a-4f5e-9a39-6a0d2d0c1e11");
      expect(r.status).to.equal(404);
      expect(r.headers["content-type"]).to.match(/^application\/json/);
      expect(r.json.error).to.equal("not_found");
    });

    it("then a missing key is 400 and a malformed key is 400", async () => {
      expect((await http(base, "/challenge/q")).json.error).to.equal("invalid_request");
      const r = await api.question("../../etc/passwd");
      expect(r.status).to.equal(400);
      expect(r.json.error).to.equal("invalid_request");
    });
  });

  describe("When someone tries an answer", () => {
    it("then the right answer is {correct: true} and a wrong one {correct: false} with 200", async () => {
      const key = await api.createKey("capital of France?", "Paris");
      const right = await api.solve(key, "Paris");
      expect(right.status).to.equal(200);
      expect(right.json).to.deep.equal({ correct: true });
      const wrong = await api.solve(key, "Lyon");
      expect(wrong.status).to.equal(200);
      expect(wrong.json).to.deep.equal({ correct: false });
    });

    it("then answers match after NFC normalisation (composed and decomposed é are equal)", async () => {
      const key = await api.createKey("accent?", "caf\u00e9");
      expect((await api.solve(key, "cafe\u0301")).json).to.deep.equal({ correct: true });
    });

    it("then matching is otherwise exact (case and spaces count)", async () => {
      const key = await api.createKey("q", "Paris");
      expect((await api.solve(key, "paris")).json).to.deep.equal({ correct: false });
      // HTTP trims a header value's outer whitespace, so a trailing space travels in the body.
      const r = await http(base, "/challenge/solve", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ key, a: "Paris " }),
      });
      expect(r.json).to.deep.equal({ correct: false });
    });

    it("then the body may be empty or any JSON object", async () => {
      const key = await api.createKey("q", "yes");
      const r = await http(base, "/challenge/solve", {
        method: "POST",
        headers: { "content-type": "application/json", key, a: "yes" },
        body: JSON.stringify({ anything: { nested: [1, 2, 3] } }),
      });
      expect(r.json).to.deep.equal({ correct: true });
    });

    it("then an unknown key is 404 and a missing answer is 400", async () => {
      expect((await api.solve("0b7c3d38-2b8a-4f5e-9a39-6a0d2d0c1e11", "x")).status).to.equal(404);
      const key = await api.createKey("q", "a");
      const r = await http(base, "/challenge/solve", { method: "POST", headers: { key } });
      expect(r.status).to.equal(400);
      expect(r.json.error).to.equal("invalid_request");
    });

    it("then malformed JSON is 400 invalid_request and the challenge is unchanged", async () => {
      const key = await api.createKey("q", "a");
      const r = await http(base, "/challenge/solve", {
        method: "POST",
        headers: { "content-type": "application/json", key, a: "a" },
        body: "{not json",
      });
      expect(r.status).to.equal(400);
      expect(r.json.error).to.equal("invalid_request");
      expect((await api.solve(key, "a")).json).to.deep.equal({ correct: true });
    });

    it("then the 11th wrong answer from one address is 429 with Retry-After, and so is the right one", async () => {
      const key = await api.createKey("q", "right");
      for (let i = 0; i < 10; i++) expect((await api.solve(key, `wrong ${i}`)).json).to.deep.equal({ correct: false });
      const limited = await api.solve(key, "wrong again");
      expect(limited.status).to.equal(429);
      expect(limited.json.error).to.equal("rate_limited");
      expect(Number(limited.headers["retry-after"])).to.be.within(1, 600);
      const right = await api.solve(key, "right");
      expect(right.status).to.equal(429);
    });

    it("then right answers do not count towards the limit", async () => {
      const key = await api.createKey("q", "right");
      for (let i = 0; i < 15; i++) expect((await api.solve(key, "right")).json).to.deep.equal({ correct: true });
      expect((await api.solve(key, "wrong")).json).to.deep.equal({ correct: false });
    });

    it("then the limit of one challenge does not touch another", async () => {
      const k1 = await api.createKey("q", "a");
      const k2 = await api.createKey("q", "a");
      for (let i = 0; i < 10; i++) await api.solve(k1, "wrong");
      expect((await api.solve(k1, "a")).status).to.equal(429);
      expect((await api.solve(k2, "a")).json).to.deep.equal({ correct: true });
    });

    it("then concurrent wrong guesses cannot get past the limit", async () => {
      const key = await api.createKey("q", "right");
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => api.solve(key, `guess ${i}`)));
      expect(results.filter((r) => r.status === 200)).to.have.length(10);
      expect(results.filter((r) => r.status === 429)).to.have.length(20);
    });
  });
});

describeBackends("Challenge limit per key", (backend) => {
  it("When a key has had its wrong answers from many addresses, then every address is refused", async () => {
    const node = await backend.startNode({ SOLVE_LIMIT_PER_KEY: "5", TRUST_PROXY: "true" });
    const api = challengeApi(node.url);
    const key = await api.createKey("q", "right");
    for (let i = 0; i < 5; i++) {
      const r = await api.solve(key, "wrong", { "x-forwarded-for": `203.0.113.${i + 1}` });
      expect(r.json).to.deep.equal({ correct: false });
    }
    const r = await api.solve(key, "right", { "x-forwarded-for": "198.51.100.7" });
    expect(r.status).to.equal(429);
    expect(r.headers["retry-after"]).to.match(/^\d+$/);
  });
});

describeBackends("Answers stay secret", (backend) => {
  it("When challenges are made and solved, then no answer appears in any log line", async () => {
    const node = await backend.startNode();
    const api = challengeApi(node.url);
    const answer = "correct-horse-battery-staple";
    const key = await api.createKey("secret?", answer);
    await api.solve(key, answer);
    await api.solve(key, "wrong-guess-zebra");
    await http(node.url, "/challenge/solve", { method: "POST", headers: { key, a: utf8Header(answer) } });
    const all = node.logs.join("\n");
    expect(node.logs.length).to.be.greaterThan(0);
    expect(all).to.not.include(answer);
    expect(all).to.not.include("wrong-guess-zebra");
  });
});
