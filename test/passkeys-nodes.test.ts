// Passkeys across nodes: two nodes on one private Redis behind one origin, as behind a load
// balancer. They share AUTH_URL (http://localhost:<the balancer's port>), so the relying party and
// the origin are one. The test's balancer sends every request to node A while the passkey is
// added, then begins the sign-in on A (its options) and sends everything else to B, which
// finishes it: the challenge, the passkey and the session all live in the shared store.
import { expect } from "chai";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext } from "playwright-core";
import { launchChromium } from "./support/browser.js";
import { ensurePagesScript } from "./support/client-bundle.js";
import { startNode, type TestNode } from "./support/nodes.js";
import { addPasskey, addVirtualAuthenticator, signOut, signUpIn, withoutAutofill } from "./support/passkeys.js";
import { requireRedis, TestRedis } from "./support/redis.js";

/** An HTTP balancer on 127.0.0.1 whose rule (path → node URL) the test sets; what went where is kept. */
async function balancer(): Promise<{
  port: number;
  server: Server;
  route(rule: (path: string) => string): void;
  served: Array<{ path: string; node: string }>;
}> {
  let rule: (path: string) => string = () => {
    throw new Error("no rule");
  };
  const served: Array<{ path: string; node: string }> = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const target = new URL(rule(path));
    served.push({ path, node: target.origin });
    const up = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on("error", () => res.writeHead(502).end());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as AddressInfo).port, server, route: (r) => (rule = r), served };
}

describe("Passkeys across nodes (one Redis, one origin)", function () {
  let redis: TestRedis;
  let browser: Browser;
  let context: BrowserContext | undefined;
  const nodes: TestNode[] = [];
  let lb: Awaited<ReturnType<typeof balancer>>;

  before(async function () {
    this.timeout(60_000);
    requireRedis(this);
    browser = await launchChromium(this);
    ensurePagesScript();
    redis = await TestRedis.start();
    lb = await balancer();
    const authUrl = `http://localhost:${lb.port}`;
    for (let i = 0; i < 2; i++)
      nodes.push(await startNode({ redisUrl: redis.url, env: { BASE_URL: authUrl, AUTH_URL: authUrl } }));
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await Promise.all(nodes.map((n) => n.close()));
    await new Promise((r) => lb?.server.close(r));
    await redis?.destroy();
  });

  it("A passkey added through node A signs in through node B, a sign-in begun on A finished on B", async function () {
    this.timeout(60_000);
    const base = `http://localhost:${lb.port}`;
    expect(nodes.map((n) => n.config.authUrl)).to.deep.equal([base, base]);
    const [a, b] = [nodes[0]!.url, nodes[1]!.url].map((u) => new URL(u).origin) as [string, string];
    lb.route(() => a);
    context = await browser.newContext();
    const page = await context.newPage();
    await withoutAutofill(page);
    await addVirtualAuthenticator(context, page);
    await signUpIn(page, base, "kanga");
    await addPasskey(page, "Desktop");
    expect(lb.served.filter((s) => s.path.startsWith("/account/passkeys")).map((s) => s.node)).to.deep.equal([a, a]);

    lb.route((path) => (path === "/signin/passkey/options" ? a : b));
    await signOut(page, base);
    await page.waitForSelector("#passkey-signin:not([hidden])");
    await Promise.all([page.waitForURL(`${base}/account`), page.click("#passkey-button")]);
    expect(await page.textContent(".display-name")).to.equal("kanga");
    const ceremony = lb.served.filter((s) => s.path.startsWith("/signin/passkey"));
    expect(ceremony).to.deep.equal([
      { path: "/signin/passkey/options", node: a },
      { path: "/signin/passkey", node: b },
    ]);
  });
});
