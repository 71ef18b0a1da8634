// The client's public-client sign-in (docs/http-api.md#public-clients) against Sigil, in Node with a
// stand-in for sessionStorage: begin keeps the verifier under its state, complete checks the state
// and trades the code with client_id alone, refresh rotates, revoke ends the grant. In a real
// browser on another origin: client-browser-public.test.ts.
import { expect } from "chai";
import { createClient, type SigilClient, type SignInStorage } from "../client/src/index.js";
import { describeBackends } from "./support/backends.js";
import { rejection } from "./support/client-errors.js";
import { OFFLINE, people, registerPublicApp, type PublicApp } from "./support/grants.js";
import { authorize, type PageClient } from "./support/pages.js";

/** sessionStorage's part, in a Map, so the test can look inside. */
class MapStorage implements SignInStorage {
  readonly map = new Map<string, string>();
  getItem(k: string) {
    return this.map.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.map.set(k, v);
  }
  removeItem(k: string) {
    this.map.delete(k);
  }
}

describeBackends("Client: a public client signs in from the page", (backend) => {
  let sigil: SigilClient;
  let spa: PublicApp;
  let alice: PageClient;
  let storage: MapStorage;

  beforeEach(async () => {
    const node = await backend.startNode();
    sigil = createClient({ baseUrl: node.url });
    let dev: PageClient;
    ({ dev, alice } = await people(node.url));
    spa = await registerPublicApp(dev, ["https://spa.example/cb"]);
    storage = new MapStorage();
  });

  const begin = () =>
    sigil.signIn.begin({
      clientId: spa.clientId,
      redirectUri: spa.redirectUri,
      scope: OFFLINE,
      storage,
      navigate: false,
    });
  const follow = async (url: string) => authorize(alice, Object.fromEntries(new URL(url).searchParams));

  it("When begin and complete run around the person's consent, then the app holds tokens, refreshes and revokes without a secret", async () => {
    const started = await begin();
    const url = new URL(started.url);
    expect(url.searchParams.get("scope")).to.equal(OFFLINE);
    expect(url.searchParams.get("code_challenge_method")).to.equal("S256");
    expect(url.searchParams.has("code_verifier")).to.equal(false);
    // The verifier waits under the state, and nowhere in the URL.
    expect(storage.getItem(`sigil.signin.${started.state}`)).to.contain(started.verifier);
    expect(started.url).to.not.contain(started.verifier);

    const callback = await follow(started.url);
    const tokens = await sigil.signIn.complete({ callback, storage });
    expect(tokens.scope).to.equal(OFFLINE);
    expect(tokens.refresh_token).to.be.a("string");
    expect(storage.map.size).to.equal(0);
    expect((await sigil.signIn.getUser(tokens.access_token, spa.clientId)).username).to.equal("alice");

    const next = await sigil.signIn.refresh({ refreshToken: tokens.refresh_token!, clientId: spa.clientId });
    expect(next.refresh_token).to.not.equal(tokens.refresh_token);
    const reused = await rejection(
      sigil.signIn.refresh({ refreshToken: tokens.refresh_token!, clientId: spa.clientId }),
    );
    expect(reused).to.include({ code: "invalid_grant", status: 400 });

    const fresh = await sigil.signIn.complete({ callback: await follow((await begin()).url), storage });
    await sigil.signIn.revoke({ token: fresh.refresh_token!, clientId: spa.clientId });
    const gone = await rejection(sigil.signIn.getUser(fresh.access_token, spa.clientId));
    expect(gone.code).to.equal("invalid_token");
  });

  it("When the callback's state is not one this browser began, or comes a second time, then complete is state_mismatch", async () => {
    const started = await begin();
    const callback = await follow(started.url);
    const forged = new URL(callback);
    forged.searchParams.set("state", "someone-elses");
    expect((await rejection(sigil.signIn.complete({ callback: forged, storage }))).code).to.equal("state_mismatch");
    await sigil.signIn.complete({ callback, storage });
    expect((await rejection(sigil.signIn.complete({ callback, storage }))).code).to.equal("state_mismatch");
  });

  it("When the person denies, then complete throws access_denied and forgets the attempt", async () => {
    const started = await begin();
    const callback = await authorize(alice, Object.fromEntries(new URL(started.url).searchParams), "deny");
    expect((await rejection(sigil.signIn.complete({ callback, storage }))).code).to.equal("access_denied");
    expect(storage.map.size).to.equal(0);
  });
});
