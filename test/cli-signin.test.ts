// docs/cli.md: `sigil users create` and `sigil apps create` (in this process, support/cli.ts) against
// a private Redis; what they make works with a node on that Redis.
import { expect } from "chai";
import { sigil as runSigil } from "./support/cli.js";
import { TestRedis, requireRedis } from "./support/redis.js";
import { TEST_SECRET, startNode, type TestNode } from "./support/nodes.js";
import { PageClient, authorize, csrfOf, token, userInfo } from "./support/pages.js";

describe("CLI: users and apps", function () {
  this.timeout(120_000);
  let redis: TestRedis;
  const nodes: TestNode[] = [];
  before(async function () {
    requireRedis(this);
    redis = await TestRedis.start();
  });
  afterEach(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.close()));
  });
  after(async () => {
    await redis?.destroy();
  });

  const sigil = (args: string[], env: Record<string, string | undefined> = { REDIS_URL: redis.url }) =>
    runSigil({ SECRET: TEST_SECRET, NODE_ENV: "test", ...env }, ...args);

  it("When an operator creates a user and an app, then each prints one JSON object and the app signs that user in", async () => {
    const u = await sigil([
      "users",
      "create",
      "--username",
      "Olga",
      "--password",
      "password123",
      "--display-name",
      "Olga O.",
    ]);
    expect(u.code, u.err).to.equal(0);
    expect(Object.keys(u.json).sort()).to.deep.equal(["id", "username"]);
    expect(u.json.username).to.equal("olga");
    expect(u.out.trim().split("\n")).to.have.length(1);

    const a = await sigil([
      "apps",
      "create",
      "--owner",
      "olga",
      "--name",
      "Shop",
      "--redirect-uri",
      "https://shop.example/cb",
      "--redirect-uri",
      "http://127.0.0.1/cb",
    ]);
    expect(a.code, a.err).to.equal(0);
    expect(Object.keys(a.json).sort()).to.deep.equal(["client_id", "client_secret", "name", "redirect_uris"]);
    expect(a.json.redirect_uris).to.deep.equal(["https://shop.example/cb", "http://127.0.0.1/cb"]);

    const node = await startNode({ redisUrl: redis.url });
    nodes.push(node);
    const c = new PageClient(node.url);
    const page = await c.get("/signin");
    expect(
      (await c.post("/signin", { _csrf: csrfOf(page.text), username: "olga", password: "password123" })).status,
    ).to.equal(303);
    const url = await authorize(c, { client_id: a.json.client_id, redirect_uri: "https://shop.example/cb" });
    const t = await token(node.url, {
      code: url.searchParams.get("code")!,
      client_id: a.json.client_id,
      client_secret: a.json.client_secret,
      redirect_uri: "https://shop.example/cb",
    });
    expect(t.status).to.equal(200);
    expect((await userInfo(node.url, t.json.access_token, a.json.client_id)).json).to.include({
      username: "olga",
      display_name: "Olga O.",
    });
  });

  it("When the input is bad, then it prints a clear error and exits non-zero", async () => {
    expect((await sigil(["users", "create", "--username", "x", "--password", "password123"])).code).to.not.equal(0);
    expect((await sigil(["users", "create", "--username", "paul"])).err).to.contain("--password");
    await sigil(["users", "create", "--username", "paul", "--password", "password123"]);
    const dup = await sigil(["users", "create", "--username", "PAUL", "--password", "password123"]);
    expect(dup.code).to.not.equal(0);
    expect(dup.err).to.contain("taken");
    const noOwner = await sigil([
      "apps",
      "create",
      "--owner",
      "nobody",
      "--name",
      "X",
      "--redirect-uri",
      "https://x.example/cb",
    ]);
    expect(noOwner.code).to.not.equal(0);
    expect(noOwner.err).to.contain("nobody");
    const badUri = await sigil([
      "apps",
      "create",
      "--owner",
      "paul",
      "--name",
      "X",
      "--redirect-uri",
      "http://x.example/cb",
    ]);
    expect(badUri.code).to.not.equal(0);
    expect(badUri.err).to.contain("https");
  });

  it("When the store is the in-process one (DATA_DIR=:memory:), then it says that store lives in the server and stops", async () => {
    const r = await sigil(["users", "create", "--username", "quinn", "--password", "password123"], {
      DATA_DIR: ":memory:",
    });
    expect(r.code).to.not.equal(0);
    expect(r.err).to.contain("DATA_DIR=:memory:").and.contain("inside the server process");
  });
});
