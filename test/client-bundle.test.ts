// GET /client.js, /client.js.map and /demo (docs/http-api.md#bundled-client-and-demo): served with the right types, cached
// and revalidated, and a clear JSON error when the bundle was not built.
import { expect } from "chai";
import express from "express";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { loadConfig } from "../src/config.js";
import { clientBundleRoutes } from "../src/http/client-bundle.js";
import { errorHandler, notFoundHandler } from "../src/http/middleware/errors.js";
import { describeBackends } from "./support/backends.js";
import { BUNDLE_FILE, ensureClientBundle } from "./support/client-bundle.js";
import { http } from "./support/http.js";
import { TEST_SECRET } from "./support/nodes.js";

describeBackends(
  "The bundled client, served",
  (backend) => {
    let base: string;
    before(() => ensureClientBundle());
    beforeEach(async () => {
      base = (await backend.startNode()).url;
    });

    describe("When a browser fetches /client.js", () => {
      it("then it gets the built bundle as JavaScript, with caching headers and a source map link", async () => {
        const r = await http(base, "/client.js");
        expect(r.status).to.equal(200);
        expect(r.headers["content-type"]).to.equal("application/javascript; charset=utf-8");
        expect(r.headers["cache-control"]).to.equal("public, max-age=300");
        expect(r.headers["etag"]).to.be.a("string").and.not.be.empty;
        expect(Date.parse(String(r.headers["last-modified"]))).to.not.be.NaN;
        expect(r.headers["x-content-type-options"]).to.equal("nosniff");
        expect(r.text).to.equal(readFileSync(BUNDLE_FILE, "utf8"));
        expect(r.text).to.match(/^("use strict";)?var Sigil=/);
        expect(r.text.trimEnd()).to.match(/\/\/# sourceMappingURL=client\.js\.map$/);
      });

      it("then revalidating with its ETag or its date is a 304 without a body", async () => {
        const first = await http(base, "/client.js");
        const byTag = await http(base, "/client.js", { headers: { "if-none-match": String(first.headers["etag"]) } });
        expect(byTag.status).to.equal(304);
        expect(byTag.text).to.equal("");
        const byDate = await http(base, "/client.js", {
          headers: { "if-modified-since": String(first.headers["last-modified"]) },
        });
        expect(byDate.status).to.equal(304);
      });

      it("then HEAD answers the headers only", async () => {
        const r = await http(base, "/client.js", { method: "HEAD" });
        expect(r.status).to.equal(200);
        expect(r.headers["content-type"]).to.equal("application/javascript; charset=utf-8");
        expect(r.text).to.equal("");
      });

      it("then /client.js.map is the source map (JSON, version 3, with the sources inside)", async () => {
        const r = await http(base, "/client.js.map");
        expect(r.status).to.equal(200);
        expect(r.headers["content-type"]).to.equal("application/json; charset=utf-8");
        expect(r.headers["etag"]).to.be.a("string");
        expect(r.json.version).to.equal(3);
        expect(
          r.json.sources.some((s: string) => s.endsWith("client/src/index.ts") || s.endsWith("src/index.ts")),
        ).to.equal(true);
        expect(r.json.sourcesContent).to.be.an("array").that.is.not.empty;
      });

      it("then POST is 405 with Allow, in the documented error format", async () => {
        const r = await http(base, "/client.js", { method: "POST" });
        expect(r.status).to.equal(405);
        expect(r.json.error).to.equal("method_not_allowed");
      });
    });

    describe("When someone opens /demo", () => {
      it("then it is a static HTML page that loads client.js, under a strict CSP", async () => {
        const r = await http(base, "/demo");
        expect(r.status).to.equal(200);
        expect(r.headers["content-type"]).to.equal("text/html; charset=utf-8");
        expect(r.text).to.include('<script src="client.js"></script>');
        const csp = String(r.headers["content-security-policy"]);
        expect(csp).to.include("default-src 'none'");
        expect(csp).to.match(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
        expect(csp).to.include("frame-ancestors 'none'");
        expect(r.headers["referrer-policy"]).to.equal("no-referrer");
      });

      it("then nothing from the request reaches the HTML", async () => {
        const plain = await http(base, "/demo");
        const probed = await http(base, "/demo?question=%3Cscript%3Ealert(1)%3C/script%3E&key=%22%3E%3Cb%3E", {
          headers: { referer: "https://evil.example/<b>", "x-forwarded-host": "evil.example" },
        });
        expect(probed.text).to.equal(plain.text);
      });
    });
  },
  ["memory"],
);

describe("The bundled client, not built", () => {
  let server: Server;
  let base: string;
  let empty: string;
  before(async () => {
    empty = mkdtempSync(join(tmpdir(), "sigil-no-bundle-"));
    const { config } = loadConfig({ NODE_ENV: "test", SECRET: TEST_SECRET });
    const app = express().use(clientBundleRoutes(config, empty)).use(notFoundHandler).use(errorHandler);
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(empty, { recursive: true, force: true });
  });

  it("When /client.js or its map is asked for, then the answer is a JSON 404 that says to build it", async () => {
    for (const path of ["/client.js", "/client.js.map"]) {
      const r = await http(base, path);
      expect(r.status).to.equal(404);
      expect(r.headers["content-type"]).to.match(/^application\/json/);
      expect(r.headers["cache-control"]).to.equal(undefined);
      expect(r.json.error).to.equal("not_found");
      expect(r.json.error_description).to.include("npm run build");
    }
  });
});
