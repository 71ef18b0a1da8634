// The CORS step of the browsers' routes (src/http/middleware/cors.ts): with any origin allowed it
// sets, on a request that is not a preflight, the headers the cors package gave once at start.
// Whatever the request, it must set exactly what the package itself sets on it.
import { expect } from "chai";
import cors from "cors";
import type { Request, RequestHandler, Response } from "express";
import type { Config } from "../src/config.js";
import { apiCors, CORS_ALLOWED_HEADERS } from "../src/http/middleware/cors.js";

/** What a handler does to a request: the headers it sets, in order, and whether it passes it on. */
function run(handler: RequestHandler, method: string, headers: Record<string, string>) {
  const set: Array<[string, string]> = [];
  const res = {
    statusCode: 200,
    getHeader: (name: string) => set.findLast(([k]) => k.toLowerCase() === name.toLowerCase())?.[1],
    setHeader: (name: string, value: unknown) => void set.push([name, String(value)]),
    end: () => set.push(["(end)", ""]),
  };
  let next = "not called";
  void handler(
    { method, headers, url: "/challenge/solve" } as unknown as Request,
    res as unknown as Response,
    (err?: unknown) => {
      next = err === undefined ? "called" : `called with ${String(err)}`;
    },
  );
  return { set, next, status: res.statusCode };
}

const METHODS = ["POST", "DELETE"];
const packageOf = (origins: string[] | undefined) =>
  cors({
    origin: origins === undefined ? "*" : origins,
    methods: METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: ["Retry-After", "X-Request-Id", "WWW-Authenticate"],
    credentials: false,
    maxAge: 600,
    preflightContinue: true,
  });

describe("CORS of the browsers' routes", () => {
  const requests: Array<[string, Record<string, string>]> = [];
  for (const method of ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
    for (const headers of <Array<Record<string, string>>>[
      {},
      { origin: "https://app.example" },
      { origin: "null" },
      { origin: "https://app.example", "access-control-request-method": "POST" },
      { origin: "https://other.example", "access-control-request-headers": "key, a, x-custom" },
    ])
      requests.push([method, headers]);

  for (const origins of [undefined, ["https://app.example"]]) {
    it(`When CORS_ORIGINS is ${origins ? "a list" : "unset (any origin)"}, then every request gets exactly the cors package's headers and is passed on as it passes it`, () => {
      const ours = apiCors({ corsOrigins: origins } as Config, METHODS);
      const theirs = packageOf(origins);
      for (const [method, headers] of requests)
        expect(run(ours, method, headers), `${method} ${JSON.stringify(headers)}`).to.deep.equal(
          run(theirs, method, headers),
        );
    });
  }

  it("When any origin is allowed, then a request that is not a preflight gets the origin and the exposed headers", () => {
    const { set, next } = run(apiCors({ corsOrigins: undefined } as Config, METHODS), "POST", {
      origin: "https://app.example",
    });
    expect(set).to.deep.equal([
      ["Access-Control-Allow-Origin", "*"],
      ["Access-Control-Expose-Headers", "Retry-After,X-Request-Id,WWW-Authenticate"],
    ]);
    expect(next).to.equal("called");
  });
});
