// Bad input (docs/errors.md): property-based fuzzing of the challenge and ops endpoints with random
// and oversized headers, invalid UTF-8, bad JSON, wrong methods and content types, bodies whose
// Content-Encoding is unknown or does not match the bytes, bad charsets, odd paths, huge
// and deeply nested bodies — and, over raw sockets, bytes that are not HTTP at all. Zero 5xx, the
// node alive, every error in the documented JSON form (save the HTTP server's own bare 400 for
// non-HTTP bytes), and a challenge made before the run reads and solves the same after it.
// FUZZ_RUNS scales the run (npm test: a few seconds; `npm run fuzz`: thousands); FUZZ_SEED replays.
import { expect } from "chai";
import fc from "fast-check";
import { connect } from "node:net";
import { describeBackends } from "./support/backends.js";
import { BAD_CHARSETS, contentEncodingHeader, expectContractError, fcOpts, fuzzRuns } from "./support/fuzz.js";
import { challengeApi, http, utf8Header } from "./support/http.js";

/** One request with the path exactly as given (no URL resolution: "//x" stays a path). */
const send = (base: string, method: string, path: string, headers: Record<string, string>, body?: string | Buffer) =>
  http(base, path, { method, headers, body, rawPath: true, timeoutMs: 5000 });

const RUNS = fuzzRuns(300);

const PATHS = [
  "/challenge/new",
  "/challenge/q",
  "/challenge/solve",
  "/healthz",
  "/readyz",
  "/metrics",
  "/openapi.json",
  "/",
  "/challenge",
  "/challenge/",
];
const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"];
const HEADER_NAMES = [
  "question",
  "answer",
  "key",
  "a",
  "ttl",
  "authorization",
  "content-type",
  "content-encoding",
  "x-request-id",
  "client_id",
  "origin",
  "access-control-request-method",
  "accept",
  "x-forwarded-for",
];
const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "application/json; charset=utf-16",
  ...BAD_CHARSETS.map((c) => `application/json; charset=${c}`),
  "application/merge-patch+json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/octet-stream",
  "",
  ";;;",
];

/** Characters node:http lets a client put in a header value (tab, printable ASCII, 0x80-0xff). */
const headerChar = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09))
  .map((c) => String.fromCharCode(c));
const latin1Value = (maxLength: number) => fc.string({ unit: headerChar, maxLength });

function arbitraryRequest(knownKey: string) {
  const value = fc.oneof(
    { weight: 4, arbitrary: latin1Value(40) }, // includes invalid UTF-8 byte sequences
    { weight: 2, arbitrary: fc.string({ maxLength: 30 }).map(utf8Header) }, // valid UTF-8 of any text
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: fc.constant(knownKey) },
    { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 20_000 }).map((n) => "x".repeat(n)) }, // up to over 16 KB
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "Bearer ",
        "Bearer x",
        "Basic Zm9vOmJhcg==",
        "60",
        "-1",
        "1e9",
        "0x10",
        " ",
        "null",
        "\xc3\x28",
        "\xed\xa0\x80",
      ),
    },
  );
  const headers = fc.dictionary(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...HEADER_NAMES) },
      { weight: 1, arbitrary: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/) },
    ),
    value,
    { maxKeys: 6 },
  );
  const nested = fc
    .integer({ min: 1, max: 40_000 })
    .chain((n) =>
      fc.constantFrom("[".repeat(n) + "]".repeat(n), '{"a":'.repeat(n) + "1" + "}".repeat(n), "[".repeat(n)),
    );
  const body = fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: fc.json({ maxDepth: 4 }) },
    {
      weight: 3,
      arbitrary: fc
        .record(
          {
            question: fc.anything(),
            answer: fc.anything(),
            key: fc.oneof(fc.anything(), fc.constant(knownKey)),
            a: fc.anything(),
            ttl: fc.anything(),
          },
          { requiredKeys: [] },
        )
        .map((o) => JSON.stringify(o) ?? "null"),
    },
    { weight: 2, arbitrary: fc.string({ maxLength: 200 }) },
    { weight: 2, arbitrary: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 300 }).map((b) => Buffer.from(b)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "{",
        "{not json",
        '{"a":}',
        "\u0000",
        '{"__proto__":{"x":1}}',
        '{"constructor":{"prototype":{}}}',
        "\ufeff{}",
        '"str"',
        "1",
        "true",
        "[]",
      ),
    },
    { weight: 1, arbitrary: nested },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 60_000, max: 200_000 })
        .map((n) => JSON.stringify({ question: "q", answer: "a".repeat(n) })),
    },
  );
  const path = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom("/challenge/new", "/challenge/q", "/challenge/solve") },
    { weight: 3, arbitrary: fc.constantFrom(...PATHS) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...PATHS), fc.webPath()).map(([a, b]) => a + b) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PATHS), fc.webQueryParameters()).map(([a, q]) => `${a}?${q}`) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((s) => "/" + encodeURIComponent(s)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "//challenge/new",
        "/challenge/../healthz",
        "/challenge/%2e%2e/q",
        "/%00",
        "/%ZZ",
        "/challenge/new%00",
        "/CHALLENGE/NEW",
        "/challenge/new/",
        "/challenge/q?key=x&key=y",
        "*",
      ),
    },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 12_000 }).map((n) => "/" + "a".repeat(n)) },
  );
  const method = fc.oneof(
    { weight: 4, arbitrary: fc.constant("POST") },
    { weight: 2, arbitrary: fc.constant("GET") },
    { weight: 2, arbitrary: fc.constantFrom(...METHODS) },
  );
  // A claimed Content-Encoding (the bytes are never really compressed) or a bad charset, with a
  // JSON type so that the body is really read (docs/errors.md: 400 invalid_request).
  const jsonType = fc.constantFrom(
    "application/json",
    "application/json; charset=utf-8",
    "application/merge-patch+json",
    ...BAD_CHARSETS.map((c) => `application/json; charset=${c}`),
  );
  const encoded = fc.oneof(
    { weight: 3, arbitrary: fc.constant<Record<string, string>>({}) },
    {
      weight: 1,
      arbitrary: fc.tuple(contentEncodingHeader, jsonType).map(([e, ct]) => ({ ...e, "content-type": ct })),
    },
  );
  return fc.record({ method, path, headers, body, encoded });
}

/** Sends raw bytes; collects what comes back until the server closes or is quiet for idleMs. */
function rawExchange(port: number, bytes: Buffer, idleMs = 200): Promise<string> {
  return new Promise((resolve) => {
    const sock = connect(port, "127.0.0.1");
    let data = "";
    let timer = setTimeout(() => sock.destroy(), idleMs);
    const quiet = () => {
      clearTimeout(timer);
      timer = setTimeout(() => sock.destroy(), idleMs);
    };
    sock.on("data", (d) => {
      data += d.toString("latin1");
      quiet();
    });
    sock.on("error", () => {});
    sock.on("close", () => {
      clearTimeout(timer);
      resolve(data);
    });
    sock.write(bytes);
  });
}

/** Every response in a raw exchange: a status under 500, and either the bare 400 or a JSON body. */
function checkRawResponses(data: string, what: string): void {
  const starts = [...data.matchAll(/HTTP\/1\.1 (\d{3}) /g)];
  for (const [i, m] of starts.entries()) {
    const status = Number(m[1]);
    const chunk = data.slice(m.index, starts[i + 1]?.index ?? data.length);
    expect(status, `${what}: ${chunk.slice(0, 300)}`).to.be.below(500);
    const head = chunk.split("\r\n\r\n")[0]!.toLowerCase();
    if (status >= 400 && /\r\ncontent-type:/.test(head))
      expect(head, `${what}: error content-type`).to.match(/\r\ncontent-type: application\/json/);
    else if (status >= 400 && status !== 405) expect(status, `${what}: a bare error response`).to.equal(400);
  }
}

function rawCase() {
  const token = fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)), maxLength: 30 });
  const requestLine = fc
    .tuple(
      fc.oneof(fc.constantFrom("GET", "POST", "PUT", "CONNECT", "TRACE", "PRI", "get", "G ET", ""), token),
      fc.oneof(fc.constantFrom(...PATHS, "*", "http://127.0.0.1/healthz", "challenge/new", "/\x00", "/ /"), token),
      fc.constantFrom("HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/9.9", "HTTP/1.1x", "", "http/1.1"),
    )
    .map(([m, p, v]) => `${m} ${p} ${v}`);
  const headerLine = fc.oneof(
    fc.constantFrom(
      "Host: 127.0.0.1",
      "Content-Type: application/json",
      "Content-Length: 5",
      "Content-Length: -1",
      "Content-Length: 99999999999999999999",
      "Content-Length: 1\r\nContent-Length: 2",
      "Transfer-Encoding: chunked",
      "Transfer-Encoding: chunked\r\nContent-Length: 3",
      "Transfer-Encoding: gzip, chunked",
      "Expect: 100-continue",
      "Expect: nope",
      "Content-Encoding: gzip",
      "Content-Encoding: nope",
      "Content-Type: application/json; charset=klingon",
      "Connection: upgrade\r\nUpgrade: websocket",
      " folded: value",
      "no colon here",
      ": empty name",
      "key: \xff\xfe",
      "question: \x00",
      "a: \x7f",
    ),
    fc.tuple(fc.stringMatching(/^[A-Za-z-]{1,12}$/), token).map(([n, v]) => `${n}: ${v}`),
    fc.integer({ min: 1, max: 20_000 }).map((n) => `x-big: ${"y".repeat(n)}`),
  );
  const structured = fc
    .tuple(
      requestLine,
      fc.array(headerLine, { maxLength: 6 }),
      fc.constantFrom("", "{}", "0\r\n\r\n", "zz\r\nabc\r\n0\r\n\r\n", '{"key":"x"}', "\x00\x01\x02"),
    )
    .map(([l, hs, b]) => Buffer.from(`${l}\r\n${hs.join("\r\n")}${hs.length ? "\r\n" : ""}\r\n${b}`, "latin1"));
  const garbage = fc
    .array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 400 })
    .map((b) => Buffer.from(b));
  const tls = fc.constant(Buffer.from("16030100a5010000a10303", "hex"));
  return fc.oneof(
    { weight: 6, arbitrary: structured },
    { weight: 2, arbitrary: garbage },
    { weight: 1, arbitrary: tls },
  );
}

describeBackends("Fuzzing the HTTP API with bad input", (backend) => {
  it("When random, oversized and malformed requests arrive, then no 5xx, errors in the documented form, data unchanged", async function () {
    this.timeout(Math.max(20_000, RUNS * 200));
    // Raised limits: fuzzed wrong answers on the known challenge must not lock it.
    const node = await backend.startNode({
      LOG_LEVEL: "warn",
      SOLVE_LIMIT_PER_ADDRESS: "1000000",
      SOLVE_LIMIT_PER_KEY: "1000000",
    });
    const api = challengeApi(node.url);
    const question = "Wer schützt das Geheimnis? 🔐";
    const answer = "ünïcode ✓";
    const key = await api.createKey(question, answer);
    const stored = backend.redis?.cli("GET", `sigil:ch:{${key}}`);
    const statuses = new Map<number, number>();
    const port = Number(new URL(node.url).port);

    await fc.assert(
      fc.asyncProperty(arbitraryRequest(key), async (r) => {
        const given = { ...r.headers, ...r.encoded };
        const what = `${r.method} ${r.path.slice(0, 80)} ${JSON.stringify(given).slice(0, 300)}`;
        // An explicit Content-Length: node:http sends a GET's body without one (invalid framing).
        const headers =
          r.body === undefined ? given : { ...given, "content-length": String(Buffer.byteLength(r.body)) };
        const res = await send(node.url, r.method, r.path, headers, r.body);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status, what).to.be.below(500);
        if (res.status >= 400 && r.method !== "HEAD") expectContractError(res, `${res.status} for ${what}`);
      }),
      fcOpts(RUNS),
    );

    await fc.assert(
      fc.asyncProperty(rawCase(), async (bytes) => {
        checkRawResponses(await rawExchange(port, bytes), JSON.stringify(bytes.toString("latin1").slice(0, 200)));
      }),
      fcOpts(Math.ceil(RUNS / 3)),
    );

    // The node is alive and the challenge made before the run is untouched.
    expect((await http(node.url, "/healthz")).status).to.equal(200);
    expect((await api.question(key)).text).to.equal(question);
    if (backend.redis) expect(backend.redis.cli("GET", `sigil:ch:{${key}}`)).to.equal(stored);
    expect((await api.solve(key, "wrong")).json).to.deep.equal({ correct: false });
    expect((await api.solve(key, answer)).json).to.deep.equal({ correct: true });
    if (process.env.FUZZ_VERBOSE)
      console.log("      statuses:", Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])));
  });
});
