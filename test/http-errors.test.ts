// CONTRACT §2: every error of the JSON API in one format; bad input never gets a 5xx.
import { expect } from "chai";
import { connect } from "node:net";
import { describeBackends } from "./support/backends.js";
import { challengeApi, http } from "./support/http.js";

function rawRequest(base: string, bytes: string): Promise<string> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname, () => s.end(bytes));
    let out = "";
    s.on("data", (d) => (out += d.toString("latin1")));
    s.on("end", () => resolve(out));
    s.on("error", reject);
  });
}

const expectContractError = (r: { headers: Record<string, unknown>; json: any }, error: string) => {
  expect(r.headers["content-type"]).to.match(/^application\/json/);
  expect(r.json.error).to.equal(error);
  expect(r.json.error_description).to.be.a("string").and.not.be.empty;
  expect(Object.keys(r.json).sort()).to.deep.equal(["error", "error_description"]);
};

describeBackends("HTTP errors", (backend) => {
  let base: string;
  beforeEach(async () => (base = (await backend.startNode()).url));

  it("When a path parameter is not valid percent-encoding, then 400 invalid_request", async () => {
    const r = await http(base, "/pictures/%E0%A4%A");
    expect(r.status).to.equal(400);
    expectContractError(r, "invalid_request");
  });

  it("When a route is unknown, then 404 not_found", async () => {
    const r = await http(base, "/no/such/thing");
    expect(r.status).to.equal(404);
    expectContractError(r, "not_found");
  });

  it("When a known path gets the wrong method, then 405 with Allow in the error format", async () => {
    const r = await http(base, "/challenge/new", { method: "GET" });
    expect(r.status).to.equal(405);
    expect(r.headers.allow).to.include("POST");
    expectContractError(r, "method_not_allowed");
  });

  it("When a body is over 64 KB, then 413 request_too_large", async () => {
    const r = await http(base, "/challenge/new", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ question: "x".repeat(70 * 1024), answer: "a" }),
    });
    expect(r.status).to.equal(413);
    expectContractError(r, "request_too_large");
  });

  it("When headers are over 16 KB in all, then 431 request_too_large in JSON", async () => {
    const r = await rawRequest(base, `GET /healthz HTTP/1.1\r\nHost: x\r\nx-big: ${"a".repeat(17 * 1024)}\r\n\r\n`);
    expect(r).to.match(/^HTTP\/1\.1 431 /);
    expect(r).to.include("application/json");
    expect(JSON.parse(r.slice(r.indexOf("\r\n\r\n") + 4)).error).to.equal("request_too_large");
  });

  it("When the bytes are not HTTP at all, then the server answers a bare 400 and stays up", async () => {
    const r = await rawRequest(base, "HELLO THERE\r\n\r\n");
    expect(r).to.match(/^HTTP\/1\.1 400 /);
    expect((await http(base, "/healthz")).status).to.equal(200);
  });

  it("When JSON is malformed or deeply nested, then 400 invalid_request, never a 5xx", async () => {
    for (const body of ["{", '{"a":', "nul", "[".repeat(5000) + "]".repeat(5000)]) {
      const r = await http(base, "/challenge/new", { method: "POST", headers: { "content-type": "application/json" }, body });
      expect(r.status, body.slice(0, 10)).to.equal(400);
      expectContractError(r, "invalid_request");
    }
  });

  it("When a field has the wrong type in the body, then 400 invalid_request", async () => {
    for (const body of [{ question: 1, answer: "a" }, { question: "q", answer: ["a"] }, { question: "q", answer: "a", ttl: "x" }, { question: "q", answer: "a", ttl: 90.5 }]) {
      const r = await http(base, "/challenge/new", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(r.status, JSON.stringify(body)).to.equal(400);
      expectContractError(r, "invalid_request");
    }
  });

  it("When a body comes with an unsupported charset, then 400 (or 415), never a 5xx", async () => {
    const r = await http(base, "/challenge/new", {
      method: "POST",
      headers: { "content-type": "application/json; charset=klingon" },
      body: "{}",
    });
    expect(r.status).to.be.oneOf([400, 415]);
    expect(r.json.error).to.be.a("string");
  });

  it("When a browser preflights a challenge call, then CORS allows the contract's headers", async () => {
    const r = await http(base, "/challenge/solve", {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "key, a, content-type",
      },
    });
    expect(r.status).to.equal(204);
    expect(r.headers["access-control-allow-origin"]).to.equal("*");
    const allowed = String(r.headers["access-control-allow-headers"]).toLowerCase();
    for (const h of ["question", "answer", "key", "a", "ttl", "authorization", "client_id", "content-type"]) {
      expect(allowed).to.include(h);
    }
  });

  it("When a browser reads a 429, then Retry-After is exposed to it", async () => {
    const key = await challengeApi(base).createKey("q", "a");
    const r = await http(base, "/challenge/q", { headers: { key, origin: "https://app.example" } });
    expect(String(r.headers["access-control-expose-headers"])).to.include("Retry-After");
  });
});

describeBackends("CORS origins setting", (backend) => {
  it("When CORS_ORIGINS lists origins, then only those are allowed", async () => {
    const { url } = await backend.startNode({ CORS_ORIGINS: "https://good.example" });
    const pre = (origin: string) =>
      http(url, "/challenge/new", {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "question" },
      });
    expect((await pre("https://good.example")).headers["access-control-allow-origin"]).to.equal("https://good.example");
    expect((await pre("https://evil.example")).headers["access-control-allow-origin"]).to.equal(undefined);
  }, );
}, ["memory"]);
