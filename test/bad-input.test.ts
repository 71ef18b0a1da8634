// Regressions found by fuzzing (test/fuzz.test.ts), each pinned as a plain test.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { http } from "./support/http.js";

describeBackends(
  "Bad input regressions",
  (backend) => {
    it("When a HEAD request has headers over 16 KB, then it is 431 without a body (a body would corrupt the connection)", async () => {
      const node = await backend.startNode();
      const res = await http(node.url, "/healthz", { method: "HEAD", headers: { "x-big": "y".repeat(20_000) } });
      expect(res.status).to.equal(431);
      expect(res.text).to.equal("");
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
