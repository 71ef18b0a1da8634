// The client's sign-in helpers (docs/http-api.md#sign-in-with-sigil): the /authorize URL with state and PKCE S256 and
// the callback checks (iss, state, OAuth errors), without a service. The requests of
// exchangeCode and getUser: client-signin-requests.test.ts; the live run against Sigil:
// client-signin-live.test.ts.
import { expect } from "chai";
import {
  challengeFromVerifier,
  createClient,
  generateState,
  generateVerifier,
  SigilError,
} from "../client/src/index.js";

const UNRESERVED = /^[A-Za-z0-9\-._~]+$/;

function thrown(fn: () => unknown): SigilError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(SigilError);
    return err as SigilError;
  }
  throw new Error("expected a SigilError");
}

describe("Client: PKCE and state", () => {
  it("When the verifier of RFC 7636 appendix B is used, then the S256 challenge is the RFC's", async () => {
    expect(await challengeFromVerifier("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).to.equal(
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    );
  });

  it("When a verifier is generated, then it is 43 unreserved characters and fresh every time", () => {
    const seen = new Set(Array.from({ length: 50 }, () => generateVerifier()));
    expect(seen.size).to.equal(50);
    for (const v of seen) expect(v).to.have.length(43).and.match(UNRESERVED);
  });

  it("When a state is generated, then it carries 128 random bits in URL-safe characters", () => {
    const s = generateState();
    expect(s).to.have.length(22).and.match(UNRESERVED);
    expect(generateState()).to.not.equal(s);
  });

  it("When a verifier is too short or has other characters, then no challenge is derived from it", async () => {
    for (const bad of ["short", "x".repeat(129), `${"x".repeat(42)}+`]) {
      try {
        await challengeFromVerifier(bad);
        expect.fail(`accepted ${bad}`);
      } catch (err) {
        expect(err).to.be.instanceOf(RangeError);
      }
    }
  });
});

describe("Client: the /authorize URL", () => {
  const sigil = createClient({ baseUrl: "https://api.sigil.example", authUrl: "https://login.sigil.example/" });

  it("When an app starts a sign-in, then the URL names the client, redirect, state and an S256 challenge of the verifier", async () => {
    const redirectUri = "https://app.example/callback?from=login";
    const req = await sigil.signIn.authorize({ clientId: "app-123", redirectUri });
    const url = new URL(req.url);
    expect(url.origin + url.pathname).to.equal("https://login.sigil.example/authorize");
    const q = url.searchParams;
    expect(q.get("response_type")).to.equal("code");
    expect(q.get("client_id")).to.equal("app-123");
    expect(q.get("redirect_uri")).to.equal(redirectUri);
    expect(q.get("state")).to.equal(req.state);
    expect(q.get("code_challenge_method")).to.equal("S256");
    expect(q.get("code_challenge")).to.equal(await challengeFromVerifier(req.verifier));
    expect(req.state).to.match(UNRESERVED);
    expect(req.verifier).to.have.length(43);
  });

  it("then the verifier itself never appears in the URL", async () => {
    const req = await sigil.signIn.authorize({ clientId: "c", redirectUri: "https://app.example/cb" });
    expect(req.url).to.not.include(req.verifier);
    expect(decodeURIComponent(req.url)).to.not.include(req.verifier);
  });

  it("then an app may bring its own state and verifier", async () => {
    const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const req = await sigil.signIn.authorize({
      clientId: "c",
      redirectUri: "http://127.0.0.1:8080/cb",
      state: "my state&=",
      verifier,
    });
    const q = new URL(req.url).searchParams;
    expect(q.get("state")).to.equal("my state&=");
    expect(q.get("code_challenge")).to.equal("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
    expect(req).to.include({ state: "my state&=", verifier });
  });

  it("then without an authUrl the pages are at the base URL", async () => {
    const plain = createClient({ baseUrl: "https://sigil.example/prefix/" });
    const req = await plain.signIn.authorize({ clientId: "c", redirectUri: "https://app.example/cb" });
    expect(req.url.startsWith("https://sigil.example/prefix/authorize?")).to.equal(true);
  });
});

describe("Client: the sign-in callback", () => {
  const sigil = createClient({ baseUrl: "https://api.sigil.example" });
  const ISS = encodeURIComponent("https://api.sigil.example");

  it("When the callback carries the code, the same state and Sigil's iss, then the code is returned", () => {
    const cb = `https://app.example/cb?code=abc123&state=s1&iss=${ISS}`;
    expect(sigil.signIn.parseCallback(cb, { state: "s1" })).to.deep.equal({ code: "abc123" });
    // A path with its query, a bare query, or the parsed parameters work the same.
    expect(sigil.signIn.parseCallback(`/cb?code=abc123&state=s1&iss=${ISS}`, { state: "s1" }).code).to.equal("abc123");
    expect(sigil.signIn.parseCallback(`?code=abc123&state=s1&iss=${ISS}`, { state: "s1" }).code).to.equal("abc123");
    expect(sigil.signIn.parseCallback(new URL(cb).searchParams, { state: "s1" }).code).to.equal("abc123");
  });

  it("When the state differs or is missing, then it is state_mismatch (a forged or crossed callback)", () => {
    expect(thrown(() => sigil.signIn.parseCallback(`?code=c&state=other&iss=${ISS}`, { state: "s1" })).code).to.equal(
      "state_mismatch",
    );
    expect(thrown(() => sigil.signIn.parseCallback(`?code=c&iss=${ISS}`, { state: "s1" })).code).to.equal(
      "state_mismatch",
    );
    expect(thrown(() => sigil.signIn.parseCallback(`?code=c&state=&iss=${ISS}`, { state: "" })).code).to.equal(
      "state_mismatch",
    );
  });

  it("When iss is missing or names another issuer, then it is issuer_mismatch, before anything else is read", () => {
    expect(thrown(() => sigil.signIn.parseCallback("?code=c&state=s1", { state: "s1" })).code).to.equal(
      "issuer_mismatch",
    );
    const other = encodeURIComponent("https://evil.example");
    expect(thrown(() => sigil.signIn.parseCallback(`?code=c&state=s1&iss=${other}`, { state: "s1" })).code).to.equal(
      "issuer_mismatch",
    );
    expect(
      thrown(() => sigil.signIn.parseCallback(`?error=access_denied&state=x&iss=${other}`, { state: "s1" })).code,
    ).to.equal("issuer_mismatch");
  });

  it("When the user denied, then the OAuth error arrives as a SigilError with its description", () => {
    const e = thrown(() =>
      sigil.signIn.parseCallback(`?error=access_denied&error_description=The+user+said+no.&state=s1&iss=${ISS}`, {
        state: "s1",
      }),
    );
    expect(e.code).to.equal("access_denied");
    expect(e.description).to.equal("The user said no.");
  });

  it("When neither code nor error came back, then it is invalid_response", () => {
    expect(thrown(() => sigil.signIn.parseCallback(`?state=s1&iss=${ISS}`, { state: "s1" })).code).to.equal(
      "invalid_response",
    );
  });
});

describe("Client: an app server that reaches Sigil at an internal address", () => {
  it("When issuer is set, then the callback's iss is checked against it, not against the base URL", () => {
    const sigil = createClient({ baseUrl: "http://sigil.internal:3000", issuer: "https://sigil.example" });
    const ok = `?code=c&state=s&iss=${encodeURIComponent("https://sigil.example")}`;
    expect(sigil.signIn.parseCallback(ok, { state: "s" }).code).to.equal("c");
    const internal = `?code=c&state=s&iss=${encodeURIComponent("http://sigil.internal:3000")}`;
    expect(thrown(() => sigil.signIn.parseCallback(internal, { state: "s" })).code).to.equal("issuer_mismatch");
  });
});
