// docs/http-api.md#operations: health, readiness, metrics, the OpenAPI document, request ids.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { challengeApi, http } from "./support/http.js";
import type { TestNode } from "./support/nodes.js";
import { waitFor } from "./support/wait.js";

describeBackends("Operations", (backend) => {
  let base: string;
  let node: TestNode;
  beforeEach(async () => {
    node = await backend.startNode();
    base = node.url;
  });

  it("When /healthz is asked, then 200", async () => {
    const r = await http(base, "/healthz");
    expect(r.status).to.equal(200);
    expect(r.json.status).to.equal("ok");
  });

  it("When /readyz is asked and the store answers, then 200 naming the store", async () => {
    const r = await http(base, "/readyz");
    expect(r.status).to.equal(200);
    expect(r.json.store).to.equal(backend.redis ? "redis" : "embedded");
  });

  it("When /metrics is scraped, then it has request counts and latencies per route", async () => {
    const api = challengeApi(base);
    const key = await api.createKey("q", "a");
    await api.solve(key, "a");
    const r = await http(base, "/metrics");
    expect(r.status).to.equal(200);
    expect(r.headers["content-type"]).to.match(/^text\/plain/);
    expect(r.text).to.match(/sigil_http_requests_total\{method="POST",route="\/challenge\/solve",status="200"\} 1/);
    expect(r.text).to.match(/sigil_http_request_duration_seconds_bucket\{[^}]*route="\/challenge\/new"/);
  });

  it("When /openapi.json is read, then it is OpenAPI 3.1 describing every challenge endpoint with its bounds", async () => {
    const r = await http(base, "/openapi.json");
    expect(r.status).to.equal(200);
    const doc = r.json;
    expect(doc.openapi).to.equal("3.1.0");
    expect(doc.paths["/challenge/new"].post.responses["201"]).to.exist;
    expect(doc.paths["/challenge/solve"].post.responses["429"]).to.exist;
    expect(doc.paths["/challenge/q"].get.responses["200"].content).to.have.property("text/plain");
    const q = doc.paths["/challenge/new"].post.parameters.find((p: any) => p.name === "question");
    expect(q).to.include({ in: "header" });
    expect(q.schema).to.include({ minLength: 1, maxLength: 1000 });
    const ttl = doc.paths["/challenge/new"].post.requestBody.content["application/json"].schema.properties.ttl;
    expect(ttl).to.include({ minimum: 60, maximum: 2592000 });
  });

  it("When a request comes in, then the answer carries a request id (the caller's, if it sent a sane one)", async () => {
    const a = await http(base, "/healthz");
    expect(a.headers["x-request-id"]).to.match(/^[0-9a-f-]{36}$/);
    const b = await http(base, "/healthz", { headers: { "x-request-id": "trace-123" } });
    expect(b.headers["x-request-id"]).to.equal("trace-123");
    const c = await http(base, "/healthz", { headers: { "x-request-id": "bad id with spaces" } });
    expect(c.headers["x-request-id"]).to.not.equal("bad id with spaces");
  });

  it("When a request is answered, then one access line names it (request id, method, path, status, time) and nothing it carried", async () => {
    const key = await challengeApi(base).createKey("q", "the-answer-xyz");
    const r = await http(base, `/challenge/solve?code=query-secret-abc`, {
      method: "POST",
      headers: { key, a: "the-answer-xyz", authorization: "Bearer header-secret-def", "x-request-id": "access-1" },
    });
    expect(r.status).to.equal(200);
    await waitFor("the access line", () => node.logs.some((l) => l.includes('"reqId":"access-1"')));
    const lines = node.logs.filter((l) => l.includes('"reqId":"access-1"'));
    expect(lines).to.have.length(1);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line).to.include({
      level: "info",
      service: "sigil",
      reqId: "access-1",
      method: "POST",
      path: "/challenge/solve",
      status: 200,
      msg: "request",
    });
    expect(line.ms).to.be.a("number");
    expect(Date.parse(line.time as string)).to.be.closeTo(Date.now(), 60_000);
    expect(lines[0]).to.not.match(/query-secret-abc|header-secret-def|the-answer-xyz/);
  });
});
