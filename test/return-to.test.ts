// docs/http-api.md#pages: `return_to` is only ever a path on this service, checked after normalisation. The
// sign-in and sign-up forms continue to the normalised path, or to /account when return_to would
// leave the service (or is not a plain path); the sign-up link carries the same checked value.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { PageClient, csrfOf, decodeHtml } from "./support/pages.js";

const PASSWORD = "correct horse battery";

/** Values that must never lead anywhere but the default, /account. */
const HOSTILE = [
  "/.//evil.example/phish",
  "/..//evil.example/phish",
  "/a/../..//evil.example",
  "/%2e//evil.example",
  "/%2E%2E//evil.example",
  "/./\\evil.example",
  "/%2F%2Fevil.example",
  "/%2f%2fevil.example",
  "/%5Cevil.example",
  "/%5c%5cevil.example",
  "/\\evil.example",
  "//evil.example",
  "///evil.example",
  "/\t/evil.example",
  "/\n/evil.example",
  "/\r\n/evil.example",
  "/\tevil",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  "https://evil.example/",
  "http:evil.example",
  "http://127.0.0.1:1/x",
  " //evil.example",
  "\\\\evil.example",
  "evil.example",
  "",
];

/** The return_to of a link or form action on a page (decoded), for each one found. */
function returnTos(html: string): string[] {
  return [...html.matchAll(/(?:href|action)="(\/sign(?:in|up)\?[^"]*)"/g)].map(
    (m) => new URL(decodeHtml(m[1]!), "http://x").searchParams.get("return_to") ?? "",
  );
}

describeBackends("return_to is checked after normalisation", (backend) => {
  let base: string;
  beforeEach(async () => {
    // TRUST_PROXY: each sign-up comes from its own address (sign-ups are limited per address).
    base = (await backend.startNode({ TRUST_PROXY: "true" })).url;
    await new PageClient(base).signUp("alice", PASSWORD);
  });

  let n = 0;
  const from = () => ({ "x-forwarded-for": `198.51.100.${(n++ % 250) + 1}` });

  for (const evil of HOSTILE) {
    it(`When sign-in is given return_to=${JSON.stringify(evil)}, then it continues to /account and its links carry /account`, async () => {
      const c = new PageClient(base);
      const q = `?return_to=${encodeURIComponent(evil)}`;
      const page = await c.get(`/signin${q}`);
      expect(returnTos(page.text)).to.have.length(2);
      for (const r of returnTos(page.text)) expect(r).to.equal("/account");
      const r = await c.post(`/signin${q}`, { _csrf: csrfOf(page.text), username: "alice", password: PASSWORD });
      expect(r.status).to.equal(303);
      expect(r.headers.location).to.equal("/account");
    });

    it(`When sign-up is given return_to=${JSON.stringify(evil)}, then it continues to /account and its links carry /account`, async () => {
      const c = new PageClient(base);
      const q = `?return_to=${encodeURIComponent(evil)}`;
      const headers = from();
      const page = await c.get(`/signup${q}`, headers);
      expect(returnTos(page.text)).to.have.length(2);
      for (const r of returnTos(page.text)) expect(r).to.equal("/account");
      const r = await c.post(
        `/signup${q}`,
        { _csrf: csrfOf(page.text), username: `u${n}x${Date.now() % 100000}`, password: PASSWORD },
        headers,
      );
      expect(r.status, r.text.slice(0, 200)).to.equal(303);
      expect(r.headers.location).to.equal("/account");
    });
  }

  for (const [given, normalised] of [
    ["/developers", "/developers"],
    ["/account/../developers", "/developers"],
    ["/./developers", "/developers"],
    ["/authorize?client_id=abc&state=x%20y", "/authorize?client_id=abc&state=x%20y"],
    ["/developers#top", "/developers"],
  ] as const) {
    it(`When return_to=${JSON.stringify(given)} is a path here, then sign-in and the sign-up link continue to ${normalised}`, async () => {
      const c = new PageClient(base);
      const page = await c.get(`/signin?return_to=${encodeURIComponent(given)}`);
      for (const r of returnTos(page.text)) expect(r).to.equal(normalised);
      const signUpLink = /href="(\/signup\?[^"]*)"/.exec(page.text)![1]!;
      const r = await c.post(`/signin?return_to=${encodeURIComponent(given)}`, {
        _csrf: csrfOf(page.text),
        username: "alice",
        password: PASSWORD,
      });
      expect(r.headers.location).to.equal(normalised);
      // Following the sign-up link, the new account continues to the same place.
      const other = new PageClient(base);
      const headers = from();
      const signUp = await other.get(decodeHtml(signUpLink), headers);
      const action = /<form method="post" action="([^"]+)"/.exec(signUp.text)![1]!;
      const made = await other.post(
        decodeHtml(action),
        { _csrf: csrfOf(signUp.text), username: `v${n}x${Date.now() % 100000}`, password: PASSWORD },
        headers,
      );
      expect(made.status, made.text.slice(0, 200)).to.equal(303);
      expect(made.headers.location).to.equal(normalised);
    });
  }
});
