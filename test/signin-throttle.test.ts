// docs/http-api.md#rate-limits: failed sign-ins are limited per username and address (10 per 15 minutes) and per
// address (100 per 15 minutes); failures from other addresses never lock a user out. Through the
// real forms, on both stores; addresses are told apart by X-Forwarded-For (TRUST_PROXY).
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import type { TestResponse } from "./support/http.js";
import { PageClient, csrfOf } from "./support/pages.js";

const PASSWORD = "correct horse battery";

/** A browser at one address: loads the sign-in form, then posts it as often as asked. */
class Browser {
  private csrf = "";
  private readonly client: PageClient;
  constructor(
    base: string,
    private readonly address: string,
  ) {
    this.client = new PageClient(base);
  }
  private get headers() {
    return { "x-forwarded-for": this.address };
  }
  async signIn(username: string, password: string): Promise<TestResponse> {
    this.csrf ||= csrfOf((await this.client.get("/signin", this.headers)).text);
    return this.client.post("/signin", { _csrf: this.csrf, username, password }, this.headers);
  }
}

/** A fresh browser at `address` tries the right password once. */
const rightFrom = (base: string, address: string, username = "alice") =>
  new Browser(base, address).signIn(username, PASSWORD);

describeBackends("Failed sign-ins are limited per username and address", (backend) => {
  let base: string;
  beforeEach(async () => {
    base = (await backend.startNode({ TRUST_PROXY: "true" })).url;
    await new PageClient(base).signUp("alice", PASSWORD);
  });

  it("When alice's password is guessed wrong 10 times from each of several addresses, then the right password from an address that has not failed signs her in", async function () {
    this.timeout(60_000);
    for (const address of ["203.0.113.1", "203.0.113.2"]) {
      const b = new Browser(base, address);
      for (let i = 0; i < 10; i++) expect((await b.signIn("alice", "wrong-password")).status).to.equal(401);
    }
    const fresh = await rightFrom(base, "198.51.100.7");
    expect(fresh.status, fresh.text.slice(0, 200)).to.equal(303);
    expect(fresh.headers.location).to.equal("/account");
  });

  it("When an address failed a few times and others failed often, then the right password from it still signs in", async function () {
    this.timeout(60_000);
    const noisy = new Browser(base, "203.0.113.9");
    for (let i = 0; i < 10; i++) await noisy.signIn("alice", "wrong-password");
    const b = new Browser(base, "198.51.100.3");
    for (let i = 0; i < 3; i++) expect((await b.signIn("alice", "wrong-password")).status).to.equal(401);
    expect((await b.signIn("alice", PASSWORD)).status).to.equal(303);
  });

  it("When one address fails 10 times for a username, then every later attempt from there is 429 with Retry-After, the right password too", async function () {
    this.timeout(60_000);
    const b = new Browser(base, "203.0.113.20");
    for (let i = 0; i < 10; i++) expect((await b.signIn("alice", "wrong-password")).status).to.equal(401);
    for (const password of ["wrong-password", PASSWORD]) {
      const r = await b.signIn("alice", password);
      expect(r.status).to.equal(429);
      expect(r.headers["retry-after"]).to.match(/^\d+$/);
      expect(Number(r.headers["retry-after"])).to.be.within(1, 900);
    }
    expect((await rightFrom(base, "203.0.113.20")).status, "a new browser at the same address").to.equal(429);
    // The same address may still sign in as someone else (the limit is per username and address).
    await new PageClient(base).signUp("bob", PASSWORD);
    expect((await rightFrom(base, "203.0.113.20", "bob")).status).to.equal(303);
  });

  it("When one address fails 100 times across usernames, then every attempt from it is 429 (the right password too), and other addresses are not affected", async function () {
    this.timeout(120_000);
    const b = new Browser(base, "203.0.113.30");
    for (let i = 0; i < 100; i++) expect((await b.signIn(`nobody${i}`, "wrong-password")).status).to.equal(401);
    expect((await b.signIn("someone-else", "wrong-password")).status).to.equal(429);
    const r = await b.signIn("alice", PASSWORD);
    expect(r.status).to.equal(429);
    expect(r.headers["retry-after"]).to.match(/^\d+$/);
    expect((await rightFrom(base, "203.0.113.31")).status).to.equal(303);
  });

  it("When 50 wrong passwords for one username arrive at once from one address, then at most 10 are counted and the rest are 429", async function () {
    this.timeout(120_000);
    const b = new Browser(base, "203.0.113.40");
    await b.signIn("alice", "wrong-password"); // loads the form; counts as the first failure
    const results = await Promise.all(Array.from({ length: 50 }, () => b.signIn("alice", "wrong-password")));
    const statuses = results.map((r) => r.status);
    const counted = statuses.filter((s) => s === 401).length;
    expect(counted, JSON.stringify(statuses)).to.be.at.most(9);
    expect(
      statuses.filter((s) => s !== 401 && s !== 429),
      JSON.stringify(statuses),
    ).to.deep.equal([]);
    expect(counted + statuses.filter((s) => s === 429).length).to.equal(50);
    expect((await b.signIn("alice", PASSWORD)).status).to.equal(429);
    expect((await rightFrom(base, "203.0.113.41")).status).to.equal(303);
  });

  it("When 50 right passwords for one username arrive at once from one address, then every one signs in", async function () {
    this.timeout(120_000);
    const address = "203.0.113.60";
    const results = await Promise.all(Array.from({ length: 50 }, () => rightFrom(base, address)));
    expect(
      results.map((r) => r.status).filter((s) => s !== 303),
      "not signed in",
    ).to.deep.equal([]);
    // And they used up nothing: nine failures later the right password still signs in.
    const b = new Browser(base, address);
    for (let i = 0; i < 9; i++) expect((await b.signIn("alice", "wrong-password")).status).to.equal(401);
    const again = await Promise.all(Array.from({ length: 20 }, () => rightFrom(base, address)));
    expect(
      again.map((r) => r.status).filter((s) => s !== 303),
      "after nine failures",
    ).to.deep.equal([]);
  });

  it("When the right password is given, then it does not count toward the limit", async function () {
    this.timeout(60_000);
    const address = "203.0.113.50";
    // Right passwords at once, well within the limit, all sign in.
    const burst = await Promise.all(Array.from({ length: 5 }, () => rightFrom(base, address)));
    expect(burst.map((r) => r.status)).to.deep.equal([303, 303, 303, 303, 303]);
    const b = new Browser(base, address);
    for (let i = 0; i < 9; i++) expect((await b.signIn("alice", "wrong-password")).status).to.equal(401);
    for (let i = 0; i < 5; i++) expect((await rightFrom(base, address)).status).to.equal(303);
    expect((await b.signIn("alice", "wrong-password")).status, "the 10th failure").to.equal(401);
    expect((await b.signIn("alice", PASSWORD)).status, "after the 10th failure").to.equal(429);
  });
});
