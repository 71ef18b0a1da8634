// Bad input on the passkey endpoints (docs/http-api.md#passkeys, docs/errors.md): property-based
// fuzzing of the six JSON ceremony endpoints (registration options/verify, sign-in options/verify,
// the deletion ceremony) and the rename/remove forms, signed in and out, with and without the
// CSRF token: random, oversized, malformed and deeply nested JSON, wrong content types, bad
// charsets, Content-Encodings that do not match the bytes, answers shaped like WebAuthn's around
// real challenges, and real answers with one signed bit flipped. Zero 5xx, every JSON refusal in
// the error form of docs/errors.md, no ceremony ever succeeds, and stored data unchanged: the
// users, their passkeys and their sessions are the same, and afterwards a real passkey still
// signs in and a new one still registers (from a fresh address: the limits the fuzz ran into
// are the limits working). FUZZ_RUNS scales the run; FUZZ_SEED replays.
import { expect } from "chai";
import fc from "fast-check";
import { describeBackends, type Backend } from "./support/backends.js";
import { BAD_CHARSETS, contentEncodingHeader, expectContractError, fcOpts, fuzzRuns } from "./support/fuzz.js";
import { http, type TestResponse } from "./support/http.js";
import type { TestNode } from "./support/nodes.js";
import { csrfOf, PageClient } from "./support/pages.js";
import { PASSKEY_ENV, addSoftPasskey, passkeySignIn } from "./support/passkeys.js";
import { SoftAuthenticator } from "./support/soft-authenticator.js";

const RUNS = fuzzRuns(100);
const PASSWORD = "correct horse battery";

const OPTIONS = ["/account/passkeys/options", "/signin/passkey/options", "/account/delete/passkey/options"] as const;
const FINISH = ["/account/passkeys", "/signin/passkey", "/account/delete/passkey"] as const;
/** Each finishing endpoint's options endpoint. */
const OPTIONS_OF: Record<(typeof FINISH)[number], (typeof OPTIONS)[number]> = {
  "/account/passkeys": "/account/passkeys/options",
  "/signin/passkey": "/signin/passkey/options",
  "/account/delete/passkey": "/account/delete/passkey/options",
};

/** One POST with the header bytes and path exactly as given, and the body's own Content-Length. */
function send(
  base: string,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer,
): Promise<TestResponse> {
  const b = typeof body === "string" ? Buffer.from(body) : body;
  return http(base, path, {
    method: "POST",
    headers: { ...headers, "content-length": String(b.length) },
    body: b,
    rawPath: true,
    timeoutMs: 10_000,
  });
}

/** A JSON endpoint's answer: no 5xx, never 415 (an unreadable body is 400), every refusal in the error form. */
function checkJson(r: TestResponse, what: string): void {
  expect(r.status, `${what} → ${r.status} ${r.text.slice(0, 200)}`).to.be.below(500);
  expect(r.status, `${what} → ${r.status}`).to.not.equal(415);
  if (r.status >= 400) expectContractError(r, `${r.status} for ${what}`);
}

// ---- arbitraries ----------------------------------------------------------------------------

const printable = fc.string({
  unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 80,
});
const b64url = (b: Uint8Array | string) => Buffer.from(b).toString("base64url");

/** JSON texts (and bytes) of every kind a client could send. */
const bodies: fc.Arbitrary<string | Buffer> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
  { weight: 2, arbitrary: fc.constant("{}") },
  {
    weight: 2,
    // Deeply nested: up to 30,000 levels (over 64 KB at the deep end: 413).
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 30_000 }), fc.constantFrom("array", "object", "response"))
      .map(([n, kind]) =>
        kind === "array"
          ? "[".repeat(n) + "]".repeat(n)
          : kind === "object"
            ? '{"a":'.repeat(n) + "1" + "}".repeat(n)
            : '{"response":'.repeat(n) + "{}" + "}".repeat(n),
      ),
  },
  {
    weight: 1,
    // Over the 64 KB limit.
    arbitrary: fc.integer({ min: 65_537, max: 90_000 }).map((n) => JSON.stringify({ response: "x".repeat(n) })),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "{",
      "{nope",
      "[1,",
      "nul",
      "null",
      "true",
      "42",
      '"response"',
      '"unterminated',
      '{"a":1}}',
      "\uFEFF{}",
      "NaN",
      "1e999999",
      '{"a":"\\ud800"}',
      '{"__proto__":{"polluted":1},"response":{"__proto__":{"id":"x"}}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '{"response":{"id":"AAAA","response":{"clientDataJSON":"AAAA"}},"response":null}',
    ),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)) },
  // Invalid UTF-8 inside a JSON string.
  {
    weight: 1,
    arbitrary: fc.constant(
      Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc0]), Buffer.from('"}')]),
    ),
  },
);

const contentTypes = fc.oneof(
  { weight: 6, arbitrary: fc.constant("application/json") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "application/json; charset=utf-8",
      "APPLICATION/JSON",
      "application/vnd.api+json",
      "application/jsonx",
      "text/plain",
      "text/json",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "",
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(...BAD_CHARSETS.map((c) => `application/json; charset=${c}`)) },
);

type Who = "alice" | "anon" | "nobody";
type Csrf = "own" | "none" | "junk" | "other";
const who = fc.constantFrom<Who>("alice", "alice", "anon", "nobody");
const csrf = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Csrf>("own") },
  { weight: 1, arbitrary: fc.constantFrom<Csrf>("none", "junk", "other") },
);
/** The client's address (TRUST_PROXY): usually a new one, so that the limits rarely end a run early. */
const address = fc.oneof(fc.ipV4(), fc.constant(undefined));

/** Anything a field of a WebAuthn answer could be sent as. */
const field = fc.oneof(
  { weight: 3, arbitrary: fc.uint8Array({ maxLength: 120 }).map(b64url) },
  { weight: 1, arbitrary: printable },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.integer({ min: 4097, max: 20_000 }).map((n) => "A".repeat(n)) },
);

/** An answer shaped like WebAuthn's: its clientDataJSON around a real challenge ("$CHALLENGE") or not. */
const shaped = fc.record({
  endpoint: fc.constantFrom(...FINISH),
  realChallenge: fc.boolean(),
  id: fc.oneof(field, fc.constantFrom("$ALICE", "$BOB")),
  clientData: fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .record({
          type: fc.oneof(fc.constantFrom("webauthn.get", "webauthn.create"), printable),
          challenge: fc.oneof(fc.constant("$CHALLENGE"), field),
          origin: fc.oneof(fc.constantFrom("$ORIGIN", "https://evil.example", "null", ""), printable),
          crossOrigin: fc.oneof(fc.boolean(), fc.jsonValue()),
        })
        .map((o) => ({ json: o })),
    },
    { weight: 1, arbitrary: field.map((v) => ({ raw: v })) },
  ),
  authenticatorData: field,
  attestationObject: field,
  signature: field,
  userHandle: fc.oneof(field, fc.constant(undefined)),
  name: fc.oneof(fc.constant("Key"), field),
  returnTo: fc.oneof(fc.constant(undefined), fc.constantFrom("/account", "//evil.example", "https://evil.example")),
});

interface World {
  node: TestNode;
  base: string;
  origin: string;
  alice: PageClient;
  aliceCsrf: string;
  aliceKey: SoftAuthenticator;
  anon: PageClient;
  anonCsrf: string;
  bobPasskey: string;
  snapshot: () => Promise<string>;
}

async function world(backend: Backend): Promise<World> {
  const node = await backend.startNode({ ...PASSKEY_ENV, TRUST_PROXY: "true", LOG_LEVEL: "warn" });
  const base = node.url;
  const origin = node.config.authUrl;
  const alice = new PageClient(base);
  await alice.signUp("alice", PASSWORD);
  const aliceKey = new SoftAuthenticator(origin);
  await addSoftPasskey(alice, aliceKey, "Laptop");
  const bob = new PageClient(base);
  await bob.signUp("bob", PASSWORD);
  const bobPasskey = await addSoftPasskey(bob, new SoftAuthenticator(origin), "Phone");
  const anon = new PageClient(base);
  const anonCsrf = csrfOf((await anon.get("/signin")).text);
  const aliceCsrf = csrfOf((await alice.get("/account")).text);
  const store = node.opened.store;
  const snapshot = async () => {
    const records = [];
    for (const name of ["alice", "bob"]) {
      const user = await store.accounts.byUsername(name);
      records.push(
        user,
        user && (await store.passkeys.listForUser(user.id)),
        // Which sessions there are (not when each was last seen: using one writes that).
        user && (await store.sessions.listForUser(user.id)).map((s) => s.sid).sort(),
      );
    }
    return JSON.stringify(records);
  };
  return { node, base, origin, alice, aliceCsrf, aliceKey, anon, anonCsrf, bobPasskey, snapshot };
}

const cookieOf = (c: PageClient) => [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; ");

/** The headers of a request as `who`, with the CSRF token as asked, from `from`. */
function headersOf(w: World, as: Who, token: Csrf, from: string | undefined): Record<string, string> {
  const client = as === "alice" ? w.alice : as === "anon" ? w.anon : undefined;
  const own = as === "alice" ? w.aliceCsrf : w.anonCsrf;
  const other = as === "alice" ? w.anonCsrf : w.aliceCsrf;
  const value = token === "own" ? own : token === "other" ? other : token === "junk" ? "nope" : undefined;
  return {
    ...(client ? { cookie: cookieOf(client) } : {}),
    ...(value !== undefined ? { "x-csrf-token": value } : {}),
    ...(from ? { "x-forwarded-for": from } : {}),
  };
}

/**
 * The `at`-th byte (modulo their count) of the two numbers, r and s, of a DER-encoded ECDSA
 * signature (SEQUENCE { INTEGER r, INTEGER s }). A flipped bit there changes the signature; a bit of
 * the DER framing around them may not (the library reads r and s and checks those), which is no
 * forgery: the same signature over the same data, written differently, for a challenge used once.
 */
function signatureValueByte(der: Buffer, at: number): number {
  const rLength = der[3]!;
  const sLength = der[5 + rLength]!;
  const values = [
    ...Array.from({ length: rLength }, (_, i) => 4 + i),
    ...Array.from({ length: sLength }, (_, i) => 6 + rLength + i),
  ];
  return values[at % values.length]!;
}

/** After a fuzz run: the node is up, users, passkeys and sessions are the same, and passkeys still work. */
async function expectUnchanged(w: World, before: string): Promise<void> {
  expect((await http(w.base, "/healthz")).status).to.equal(200);
  expect(await w.snapshot(), "users, passkeys and sessions").to.equal(before);
  expect(
    w.node.logs.filter((l) => /"level":(50|60)/.test(l)),
    "errors logged",
  ).to.deep.equal([]);
  const fresh = "192.0.2.200";
  const signedIn = await passkeySignIn(w.base, w.aliceKey, fresh);
  expect(signedIn.status, `alice's passkey signs in: ${signedIn.text}`).to.equal(200);
  const another = new SoftAuthenticator(w.origin);
  await addSoftPasskey(w.alice, another, "New key");
  const withNew = await passkeySignIn(w.base, another, fresh);
  expect(withNew.status, `the new passkey signs in: ${withNew.text}`).to.equal(200);
}

describeBackends("Fuzzing the passkey endpoints with bad input", (backend) => {
  it("When random, oversized, malformed and deeply nested bodies with any content type and encoding reach every passkey JSON endpoint, signed in or out, with or without CSRF, then no 5xx, documented errors, no ceremony finishes, data unchanged", async function () {
    this.timeout(Math.max(60_000, RUNS * 300));
    const w = await world(backend);
    const before = await w.snapshot();
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          path: fc.constantFrom(...OPTIONS, ...FINISH),
          body: bodies,
          ct: contentTypes,
          encoding: contentEncodingHeader,
          who,
          csrf,
          address,
        }),
        async (f) => {
          const headers = {
            ...headersOf(w, f.who, f.csrf, f.address),
            ...(f.ct ? { "content-type": f.ct } : {}),
            ...f.encoding,
          };
          const r = await send(w.base, f.path, headers, f.body);
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          const what = `POST ${f.path} as ${f.who} (csrf ${f.csrf}) ${f.ct} ${JSON.stringify(f.encoding)} ${String(f.body).slice(0, 200)}`;
          checkJson(r, what);
          if ((FINISH as readonly string[]).includes(f.path)) expect(r.status, what).to.be.at.least(400);
        },
      ),
      fcOpts(RUNS),
    );
    if (process.env.FUZZ_VERBOSE) console.log("      passkey JSON statuses:", Object.fromEntries(statuses));
    await expectUnchanged(w, before);
  });

  it("When answers shaped like WebAuthn's (real or random challenges, random ids, bytes and fields) reach the ceremony endpoints, then none is accepted, refusals are documented errors, data unchanged", async function () {
    this.timeout(Math.max(60_000, RUNS * 400));
    const w = await world(backend);
    const before = await w.snapshot();
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(shaped, who, csrf, address, async (s, as, token, from) => {
        const headers = { ...headersOf(w, as, token, from), "content-type": "application/json" };
        let challenge = b64url("no-challenge");
        if (s.realChallenge) {
          const o = await send(w.base, OPTIONS_OF[s.endpoint], headers, "{}");
          checkJson(o, `POST ${OPTIONS_OF[s.endpoint]} as ${as}`);
          if (o.status === 200) challenge = o.json.challenge;
        }
        const fill = (v: unknown): unknown =>
          v === "$CHALLENGE"
            ? challenge
            : v === "$ORIGIN"
              ? w.origin
              : v === "$ALICE"
                ? w.aliceKey.ids[0]
                : v === "$BOB"
                  ? w.bobPasskey
                  : v;
        const clientDataJSON =
          "json" in s.clientData
            ? b64url(
                JSON.stringify(Object.fromEntries(Object.entries(s.clientData.json).map(([k, v]) => [k, fill(v)]))),
              )
            : s.clientData.raw;
        const id = fill(s.id);
        const response = {
          id,
          rawId: id,
          type: "public-key",
          response: {
            clientDataJSON,
            authenticatorData: s.authenticatorData,
            attestationObject: s.attestationObject,
            signature: s.signature,
            ...(s.userHandle !== undefined ? { userHandle: s.userHandle } : {}),
          },
          clientExtensionResults: {},
        };
        const body = JSON.stringify({
          response,
          ...(s.endpoint === "/account/passkeys" ? { name: s.name } : {}),
          ...(s.returnTo !== undefined ? { return_to: s.returnTo } : {}),
        });
        const r = await send(w.base, s.endpoint, headers, body);
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        const what = `POST ${s.endpoint} as ${as} (csrf ${token}) ${body.slice(0, 300)}`;
        checkJson(r, what);
        expect(r.status, what).to.be.at.least(400);
      }),
      fcOpts(RUNS),
    );
    if (process.env.FUZZ_VERBOSE) console.log("      shaped answer statuses:", Object.fromEntries(statuses));
    await expectUnchanged(w, before);
  });

  it("When a real passkey answer has one signed bit flipped (authenticator data, client data or signature), then it never signs in or deletes, and data is unchanged", async function () {
    this.timeout(Math.max(60_000, RUNS * 400));
    const w = await world(backend);
    const before = await w.snapshot();
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("/signin/passkey", "/account/delete/passkey"),
        fc.constantFrom("authenticatorData", "clientDataJSON", "signature"),
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        fc.ipV4(),
        async (endpoint, part, at, bit, from) => {
          const headers = { ...headersOf(w, "alice", "own", from), "content-type": "application/json" };
          const o = await send(w.base, OPTIONS_OF[endpoint], headers, "{}");
          // Long runs use up the deletion ceremonies alice may begin (300 per 5 minutes): the limit working.
          if (o.status === 429 && endpoint === "/account/delete/passkey") return;
          expect(o.status, o.text).to.equal(200);
          const answer = w.aliceKey.assert(o.json) as { response: Record<string, string> };
          const bytes = Buffer.from(answer.response[part]!, "base64url");
          const index = part === "signature" ? signatureValueByte(bytes, at) : at % bytes.length;
          bytes[index]! ^= 1 << bit;
          answer.response[part] = bytes.toString("base64url");
          const r = await send(w.base, endpoint, headers, JSON.stringify({ response: answer }));
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          const what = `POST ${endpoint}, ${part} byte ${index} bit ${bit} flipped`;
          checkJson(r, what);
          expect(r.status, what).to.be.oneOf([400, 429]);
        },
      ),
      fcOpts(RUNS),
    );
    if (process.env.FUZZ_VERBOSE) console.log("      flipped-bit statuses:", Object.fromEntries(statuses));
    await expectUnchanged(w, before);
  });

  it("When the rename and remove forms get random ids and names, signed in or out, with or without CSRF, then no 5xx, and no passkey changes but by its owner's own valid form", async function () {
    this.timeout(Math.max(60_000, RUNS * 300));
    const w = await world(backend);
    const before = await w.snapshot();
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          action: fc.constantFrom("rename", "remove"),
          // Alice's own passkey only with a token that is not hers: with it, a rename is her own decision.
          target: fc.oneof(
            fc.constant("$BOB"),
            fc.constant("$ALICE"),
            fc.constantFrom("", "AAAA", "..", "%2F..%2F", "%00", "a%2Fb", "x".repeat(2000)),
            fc.uint8Array({ maxLength: 64 }).map(b64url),
          ),
          name: fc.oneof(fc.constant("Renamed"), printable, fc.string({ unit: "grapheme", maxLength: 80 })),
          who,
          csrf,
          ct: fc.constantFrom(
            "application/x-www-form-urlencoded",
            "application/json",
            "text/plain",
            "",
            "application/x-www-form-urlencoded; charset=klingon",
          ),
          encoding: contentEncodingHeader,
        }),
        async (f) => {
          fc.pre(!(f.target === "$ALICE" && f.who === "alice" && f.csrf === "own"));
          const id = f.target === "$ALICE" ? w.aliceKey.ids[0]! : f.target === "$BOB" ? w.bobPasskey : f.target;
          const h = headersOf(w, f.who, f.csrf, undefined);
          const token = h["x-csrf-token"];
          const fields = new URLSearchParams({ ...(token ? { _csrf: token } : {}), name: f.name }).toString();
          const body = f.ct === "application/json" ? JSON.stringify({ _csrf: token, name: f.name }) : fields;
          const headers = {
            ...(h.cookie ? { cookie: h.cookie } : {}),
            ...(f.ct ? { "content-type": f.ct } : {}),
            ...f.encoding,
          };
          const path = `/account/passkeys/${/%|^\.\.$/.test(id) ? id : encodeURIComponent(id)}/${f.action}`;
          const r = await send(w.base, path, headers, body);
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          const what = `POST ${path.slice(0, 120)} as ${f.who} (csrf ${f.csrf}) ${f.ct} ${JSON.stringify(f.encoding)}`;
          expect(r.status, `${what} → ${r.status} ${r.text.slice(0, 200)}`).to.be.below(500);
          expect(r.status, what).to.not.equal(415);
          const loc = r.headers.location;
          if (typeof loc === "string") expect(loc, what).to.match(/^\/(?![/\\])/);
        },
      ),
      fcOpts(RUNS),
    );
    if (process.env.FUZZ_VERBOSE) console.log("      rename/remove statuses:", Object.fromEntries(statuses));
    await expectUnchanged(w, before);
  });
});
