// The route table (src/http/routes.ts) is the one declaration of the JSON API: /openapi.json,
// 405 with Allow, OPTIONS and the CORS preflight are all made from it. These tests walk the table
// of a running node and the document it serves, both ways, and knock on every path with every
// method, so that a route added, removed or changed in one place only cannot pass.
import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createMetrics } from "../src/metrics.js";
import { allowOf, type JsonRoute } from "../src/http/route.js";
import { routes } from "../src/http/routes.js";
import { describeBackends, oneBackend } from "./support/backends.js";
import { http, type TestResponse } from "./support/http.js";
import type { TestNode } from "./support/nodes.js";
import { ROOT } from "./support/processes.js";

const METHODS = ["get", "post", "put", "delete", "patch"] as const;

/** The node's own route table, built as createHttpApp builds it. */
function tableOf(node: TestNode): JsonRoute[] {
  return routes({ config: node.config, services: node.server.services, metrics: createMetrics() }).api;
}

/** path → the methods the table serves on it. */
function pathsOf(table: readonly JsonRoute[]): Map<string, Array<(typeof METHODS)[number]>> {
  const paths = new Map<string, Array<(typeof METHODS)[number]>>();
  for (const r of table) paths.set(r.spec.path, [...(paths.get(r.spec.path) ?? []), r.spec.method]);
  return paths;
}

/** An error answer in the contract's format (§2): JSON, exactly {error, error_description}. */
function expectError(r: TestResponse, code: string, what: string): void {
  expect(r.headers["content-type"], what).to.match(/^application\/json/);
  expect(Object.keys(r.json ?? {}).sort(), `${what}: ${r.text.slice(0, 200)}`).to.deep.equal([
    "error",
    "error_description",
  ]);
  expect(r.json.error, what).to.equal(code);
  expect(r.json.error_description, what).to.be.a("string").and.not.be.empty;
}

describeBackends(
  "The route table",
  (backend) => {
    it("When the table and /openapi.json are walked, then every JSON route has its operation, every operation is a route, and each answers on a running node as its operation documents", async () => {
      const node = await backend.startNode();
      const table = tableOf(node);
      const doc = (await http(node.url, "/openapi.json")).json;
      const documented: string[] = [];
      for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
        for (const method of Object.keys(ops)) documented.push(`${method.toUpperCase()} ${path}`);
      }
      const declared = table.map((r) => `${r.spec.method.toUpperCase()} ${r.spec.path}`);
      expect(declared.length, "no route is declared twice").to.equal(new Set(declared).size);
      expect([...documented].sort(), "the operations of /openapi.json").to.deep.equal([...declared].sort());
      for (const r of table) {
        const op = doc.paths[r.spec.path][r.spec.method];
        expect(op.summary, `${r.spec.method} ${r.spec.path}`).to.equal(r.spec.summary);
      }
      // Each operation, asked plainly (no credentials, no body), is served by its route: not the
      // unknown route's 404 nor a 405, never a 5xx, and with a status its operation documents.
      const answers = await Promise.all(
        documented.map((what) => {
          const [method, path] = what.split(" ") as [string, string];
          return http(node.url, path, { method });
        }),
      );
      for (const [i, what] of documented.entries()) {
        const [method, path] = what.split(" ") as [string, string];
        const r = answers[i]!;
        expect(r.status, `${what}: ${r.text.slice(0, 200)}`).to.not.be.oneOf([404, 405]);
        expect(r.status, what).to.be.below(500);
        const op = doc.paths[path][method.toLowerCase()];
        expect(Object.keys(op.responses), `${what}: documented statuses`).to.include(String(r.status));
        if (r.status >= 400) expectError(r, r.json.error, what);
      }
    });
  },
  oneBackend("redis"),
);

// What the table makes of methods and origins happens before any route reaches the store: one
// backend is enough for it.
describeBackends(
  "The route table's methods and CORS",
  (backend) => {
    it("When a known JSON path gets a method it does not serve, then 405 in the error format with Allow naming the table's methods; OPTIONS is 204 with the same Allow", async () => {
      const node = await backend.startNode();
      const paths = pathsOf(tableOf(node));
      expect(paths.size).to.be.above(10);
      const checks = [...paths].map(async ([path, served]) => {
        const allow = allowOf(served);
        expect(allow.split(", "), path).to.include.members(served.map((m) => m.toUpperCase()));
        for (const method of METHODS.filter((m) => !served.includes(m))) {
          const what = `${method.toUpperCase()} ${path}`;
          const r = await http(node.url, path, { method: method.toUpperCase() });
          expect(r.status, what).to.equal(405);
          expect(r.headers.allow, what).to.equal(allow);
          expectError(r, "method_not_allowed", what);
        }
        const options = await http(node.url, path, { method: "OPTIONS" });
        expect([options.status, options.headers.allow], `OPTIONS ${path}`).to.deep.equal([204, allow]);
        if (served.includes("get")) {
          const head = await http(node.url, path, { method: "HEAD" });
          expect(head.status, `HEAD ${path}`).to.not.be.oneOf([404, 405]);
        }
      });
      await Promise.all(checks);
    });

    for (const corsOrigins of ["", "https://app.example"]) {
      it(`When a browser's preflight reaches each JSON path (CORS_ORIGINS="${corsOrigins}"), then the table's "browsers" routes allow it with their own methods, and the others do not`, async () => {
        const node = await backend.startNode(corsOrigins ? { CORS_ORIGINS: corsOrigins } : {});
        const table = tableOf(node);
        const paths = pathsOf(table);
        const browsers = new Set(table.filter((r) => r.cors === "browsers").map((r) => r.spec.path));
        expect([...browsers]).to.include.members(["/challenge/new", "/challenge/solve", "/auth/user", "/userinfo"]);
        // docs/http-api.md#cors names exactly these paths.
        const corsDoc = readFileSync(join(ROOT, "docs/http-api.md"), "utf8").split("\n## CORS\n")[1]!.split("\n\n")[0]!;
        expect([...corsDoc.matchAll(/`(\/[^`]*)`/g)].map((m) => m[1]).sort(), "docs/http-api.md#cors").to.deep.equal(
          [...browsers].sort(),
        );
        const preflight = (path: string, origin: string, method: string) =>
          http(node.url, path, {
            method: "OPTIONS",
            headers: { origin, "access-control-request-method": method, "access-control-request-headers": "key,a" },
          });
        for (const [path, served] of paths) {
          for (const method of served) {
            const what = `preflight of ${method.toUpperCase()} ${path}`;
            const r = await preflight(path, "https://app.example", method.toUpperCase());
            expect(r.status, what).to.equal(204);
            expect(r.headers.allow, what).to.equal(allowOf(served));
            if (browsers.has(path)) {
              expect(r.headers["access-control-allow-origin"], what).to.equal(
                corsOrigins ? "https://app.example" : "*",
              );
              const allowed = String(r.headers["access-control-allow-methods"]).split(",");
              expect(allowed, what).to.have.members(allowOf(served).replace(", OPTIONS", "").split(", "));
              expect(String(r.headers["access-control-allow-headers"]), what).to.include("key");
              expect(r.headers["access-control-max-age"], what).to.equal("600");
              const elsewhere = await preflight(path, "https://else.example", method.toUpperCase());
              expect(elsewhere.headers["access-control-allow-origin"], `${what} from elsewhere`).to.equal(
                corsOrigins ? undefined : "*",
              );
            } else {
              // "public clients" routes allow only public clients' origins (oauth-public-clients.test.ts).
              expect(r.headers["access-control-allow-origin"], what).to.equal(undefined);
            }
          }
        }
      });
    }
  },
  ["memory"],
);
