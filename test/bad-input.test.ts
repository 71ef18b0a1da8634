// Regressions found by fuzzing (test/fuzz.test.ts), each pinned as a plain test.
import { expect } from "chai";
import { request } from "node:http";
import { describeBackends } from "./support/backends.js";
import { http } from "./support/http.js";

describeBackends(
  "Bad input regressions",
  (backend) => {
    it("When a HEAD request has headers over 16 KB, then it is 431 without a body (a body would corrupt the connection)", async () => {
      const node = await backend.startNode();
      const port = Number(new URL(node.url).port);
      const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, path: "/healthz", method: "HEAD", headers: { "x-big": "y".repeat(20_000) }, agent: false }, (r) => {
          let body = "";
          r.on("data", (c: Buffer) => (body += c.toString()));
          r.on("end", () => resolve({ status: r.statusCode ?? 0, body }));
        });
        req.on("error", reject);
        req.end();
      });
      expect(res.status).to.equal(431);
      expect(res.body).to.equal("");
    });

    it("When a GET request has headers over 16 KB, then it is 431 request_too_large in JSON", async () => {
      const node = await backend.startNode();
      const r = await http(node.url, "/healthz", { headers: { "x-big": "y".repeat(20_000) } });
      expect(r.status).to.equal(431);
      expect(r.headers["content-type"]).to.match(/^application\/json/);
      expect(r.json.error).to.equal("request_too_large");
    });
  },
  ["memory"],
);
