// Device authorization (docs/http-api.md#device-authorization): typed user codes limited per
// address, codes that expire (DEVICE_CODE_TTL), and a request allowed on one node and polled on
// another (Redis).
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { decideDevice, deviceAuthorization, enterCode, pollDevice, startDevice } from "./support/device.js";
import { registerPublicApp } from "./support/grants.js";
import { http } from "./support/http.js";
import { PageClient } from "./support/pages.js";

describeBackends("Device authorization: limits and time", function (this: Mocha.Suite, backend) {
  this.timeout(30_000);

  it("When one address types 10 codes that match nothing, then the 11th is refused (429) even when right", async () => {
    const node = await backend.startNode();
    const dev = new PageClient(node.url);
    await dev.signUp("devon");
    const cli = await registerPublicApp(dev, ["http://127.0.0.1/cb"], "CLI");
    const guesser = new PageClient(node.url, "127.0.0.3");
    await guesser.signUp("mallory", "password123");
    const s = await startDevice(node.url, { client_id: cli.clientId });
    for (let i = 0; i < 10; i++) expect((await enterCode(guesser, "BBBB-BBBB")).status).to.equal(400);
    const right = await enterCode(guesser, s.user_code);
    expect(right.status).to.equal(429);
    expect(right.headers["retry-after"]).to.match(/^\d+$/);
    // Another address is not held up.
    const alice = new PageClient(node.url);
    await alice.signUp("alice", "password123");
    expect((await enterCode(alice, s.user_code)).status).to.equal(200);
  });

  it("When one address asks for 30 device authorizations in 15 minutes (50 at once), then the rest are 429 rate_limited with Retry-After and store nothing, while another address still gets one", async () => {
    const node = await backend.startNode();
    const dev = new PageClient(node.url);
    await dev.signUp("devon");
    const cli = await registerPublicApp(dev, ["http://127.0.0.1/cb"], "CLI");
    const made: string[] = [];
    const codes = node.opened.store.deviceCodes;
    const create = codes.create.bind(codes);
    codes.create = (...args) => {
      made.push(args[0]);
      return create(...args);
    };
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => deviceAuthorization(node.url, { client_id: cli.clientId }, "127.0.0.5")),
    );
    expect(answers.filter((r) => r.status === 200)).to.have.length(30);
    for (const r of answers.filter((a) => a.status !== 200)) {
      expect(r.status, r.text).to.equal(429);
      expect(r.json).to.deep.equal({
        error: "rate_limited",
        error_description: "Too many device authorizations from this address; try again later.",
      });
      expect(Number(r.headers["retry-after"])).to.be.within(1, 900);
    }
    expect(made).to.have.length(30);
    const other = await deviceAuthorization(node.url, { client_id: cli.clientId }, "127.0.0.6");
    expect(other.status, other.text).to.equal(200);
    expect(made).to.have.length(31);
  });

  it("When AUTH_URL is apart from BASE_URL, then the device is sent to {auth_url}/device and polls {base_url}", async () => {
    const node = await backend.startNode({ AUTH_URL: "https://login.example", BASE_URL: "https://api.example" });
    const meta = (await http(node.url, "/.well-known/openid-configuration")).json as Record<string, unknown>;
    expect(meta.device_authorization_endpoint).to.equal("https://api.example/device_authorization");
    // Made by the node's own services: the pages' cookies are Secure on an https address.
    const { app } = await node.server.services.apps.create("owner-id", "CLI", ["http://127.0.0.1/cb"], {
      public: true,
    });
    const s = await startDevice(node.url, { client_id: app.clientId });
    expect(s.verification_uri).to.equal("https://login.example/device");
    expect(s.verification_uri_complete).to.equal(`https://login.example/device?user_code=${s.user_code}`);
  });

  it("When the codes have expired (DEVICE_CODE_TTL), then the page finds nothing and the device hears expired_token", async () => {
    const node = await backend.startNode({ DEVICE_CODE_TTL: "1" });
    const dev = new PageClient(node.url);
    await dev.signUp("devon");
    const cli = await registerPublicApp(dev, ["http://127.0.0.1/cb"], "CLI");
    const s = await startDevice(node.url, { client_id: cli.clientId });
    expect(s.expires_in).to.equal(1);
    await new Promise((r) => setTimeout(r, 1100)); // the code's life passing is what is tested
    expect((await enterCode(dev, s.user_code)).status).to.equal(400);
    const poll = await pollDevice(node.url, s.device_code, { client_id: cli.clientId });
    expect(poll.json).to.include({ error: "expired_token" });
  });
});

describeBackends(
  "Device authorization across nodes",
  function (this: Mocha.Suite, backend) {
    this.timeout(30_000);

    it("When the person allows on node A and the device polls node B, then B hands out the tokens once", async () => {
      const a = await backend.startNode();
      const b = await backend.startNode({ BASE_URL: a.url });
      const dev = new PageClient(a.url);
      await dev.signUp("devon");
      const cli = await registerPublicApp(dev, ["http://127.0.0.1/cb"], "CLI");
      const s = await startDevice(b.url, { client_id: cli.clientId, scope: "openid profile" });
      expect((await pollDevice(b.url, s.device_code, { client_id: cli.clientId })).json).to.include({
        error: "authorization_pending",
      });
      const alice = new PageClient(a.url);
      await alice.signUp("alice", "password123");
      expect((await decideDevice(alice, s.user_code, "allow")).status).to.equal(200);
      const polls = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          pollDevice(i % 2 ? a.url : b.url, s.device_code, { client_id: cli.clientId }),
        ),
      );
      expect(polls.filter((r) => r.status === 200)).to.have.length(1);
    });
  },
  ["redis"],
);
