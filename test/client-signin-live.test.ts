// The client's sign-in helpers against Sigil's live sign-in (docs/http-api.md#sign-in-with-sigil): the authorize URL it
// builds is accepted, its callback checks pass on Sigil's real redirect (iss, state), and
// exchangeCode / getUser work, with Sigil's errors arriving as SigilErrors.
import { expect } from "chai";
import { createClient, SigilError, type SigilClient } from "../client/src/index.js";
import { describeBackends } from "./support/backends.js";
import { rejection } from "./support/client-errors.js";
import { PageClient, authorize, registerApp, type TestApp } from "./support/pages.js";

describeBackends("Client: sign-in against Sigil", (backend) => {
  let sigil: SigilClient;
  let app: TestApp;
  let alice: PageClient;
  beforeEach(async () => {
    const node = await backend.startNode();
    sigil = createClient({ baseUrl: node.url });
    const dev = new PageClient(node.url);
    await dev.signUp("devon");
    app = await registerApp(dev, ["https://app.example/cb"]);
    alice = new PageClient(node.url);
    await alice.signUp("alice", "password123", "Alice Liddell");
  });

  /** Alice follows the client's authorize URL and decides; returns Sigil's redirect. */
  async function follow(url: string, decision = "allow"): Promise<URL> {
    return authorize(alice, Object.fromEntries(new URL(url).searchParams), decision);
  }

  it("When a user signs in through the client's URL, then the callback checks pass and the code trades for the user", async () => {
    const req = await sigil.signIn.authorize({ clientId: app.clientId, redirectUri: app.redirectUri });
    const callback = await follow(req.url);
    const { code } = sigil.signIn.parseCallback(callback, { state: req.state });
    const token = await sigil.signIn.exchangeCode({
      code,
      verifier: req.verifier,
      redirectUri: app.redirectUri,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
    });
    expect(token).to.include({ token_type: "Bearer", expires_in: 3600, scope: "profile" });
    const user = await sigil.signIn.getUser(token.access_token, app.clientId);
    expect(user).to.include({ username: "alice", display_name: "Alice Liddell" });
    expect(new URL(user.profile_picture).origin).to.equal(sigil.baseUrl);

    const again = await rejection(
      sigil.signIn.exchangeCode({
        code,
        verifier: req.verifier,
        redirectUri: app.redirectUri,
        clientId: app.clientId,
        clientSecret: app.clientSecret,
      }),
    );
    expect(again).to.include({ code: "invalid_grant", status: 400 });
    const revoked = await rejection(sigil.signIn.getUser(token.access_token, app.clientId));
    expect(revoked).to.include({ code: "invalid_token", status: 401 });
  });

  it("When the verifier is not the one of the challenge, then the trade is invalid_grant", async () => {
    const req = await sigil.signIn.authorize({ clientId: app.clientId, redirectUri: app.redirectUri });
    const { code } = sigil.signIn.parseCallback(await follow(req.url), { state: req.state });
    const e = await rejection(
      sigil.signIn.exchangeCode({
        code,
        verifier: "x".repeat(43),
        redirectUri: app.redirectUri,
        clientId: app.clientId,
        clientSecret: app.clientSecret,
      }),
    );
    expect(e).to.include({ code: "invalid_grant", status: 400 });
  });

  it("When the secret is wrong, then it is invalid_client 401", async () => {
    const req = await sigil.signIn.authorize({ clientId: app.clientId, redirectUri: app.redirectUri });
    const { code } = sigil.signIn.parseCallback(await follow(req.url), { state: req.state });
    const e = await rejection(
      sigil.signIn.exchangeCode({
        code,
        verifier: req.verifier,
        redirectUri: app.redirectUri,
        clientId: app.clientId,
        clientSecret: "wrong",
      }),
    );
    expect(e).to.include({ code: "invalid_client", status: 401 });
  });

  it("When the user denies, then parseCallback throws access_denied (after checking iss and state)", async () => {
    const req = await sigil.signIn.authorize({ clientId: app.clientId, redirectUri: app.redirectUri });
    const callback = await follow(req.url, "deny");
    expect(() => sigil.signIn.parseCallback(callback, { state: "another" })).to.throw(SigilError, /state_mismatch/);
    try {
      sigil.signIn.parseCallback(callback, { state: req.state });
      expect.fail("no error");
    } catch (err) {
      expect(err).to.include({ code: "access_denied" });
    }
  });

  it("When the token is used with another client_id, then getUser is invalid_token", async () => {
    const req = await sigil.signIn.authorize({ clientId: app.clientId, redirectUri: app.redirectUri });
    const { code } = sigil.signIn.parseCallback(await follow(req.url), { state: req.state });
    const t = await sigil.signIn.exchangeCode({
      code,
      verifier: req.verifier,
      redirectUri: app.redirectUri,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
    });
    const e = await rejection(sigil.signIn.getUser(t.access_token, "someone-else"));
    expect(e).to.include({ code: "invalid_token", status: 401 });
  });
});
