// The /demo page's live results, driven in headless Chromium as a visitor would: paste a CUSTOM
// TOKEN, create a challenge in Japanese (it belongs to the token's app), read it back, solve it,
// and watch every attempt arrive over the socket — across a server-side disconnect and a reload,
// each once and in order — and be told when results may be missing.
import { expect } from "chai";
import type { Page } from "playwright-core";
import { describeBackends, oneBackend } from "./support/backends.js";
import { pagePerTest } from "./support/browser.js";
import { challengeApi } from "./support/http.js";
import type { TestNode } from "./support/nodes.js";

const text = (page: Page, sel: string) => page.locator(sel).textContent();
/** The live list as the visitor sees it: [key, verdict] per line, and the events' ids. */
async function results(page: Page) {
  const lines = await page.locator("#live-results li").evaluateAll((lis) =>
    lis.map((li) => ({
      id: (li as HTMLElement).dataset.id!,
      key: li.querySelector("code")!.textContent!,
      verdict: li.querySelector("strong")!.textContent!,
    })),
  );
  return { seen: lines.map((l) => [l.key, l.verdict]), ids: new Set(lines.map((l) => l.id)) };
}
const waitText = (page: Page, sel: string, re: RegExp) =>
  page.waitForFunction(([s, src]) => new RegExp(src!).test(document.querySelector(s!)?.textContent ?? ""), [
    sel,
    re.source,
  ] as const);
const waitCount = (page: Page, n: number) =>
  page.waitForFunction((n) => document.querySelectorAll("#live-results li").length >= n, n);

describeBackends(
  "The /demo page: live results in a browser",
  (backend) => {
    let page: Page;
    let problems: string[];
    let node: TestNode;
    let token: string;
    pagePerTest((p, seen) => {
      page = p;
      problems = seen;
    });
    beforeEach(async () => {
      node = await backend.startNode();
      ({ token } = await node.server.customTokens.create({ app: "test-app" }));
      await page.goto(`${node.url}/demo`);
      await page.fill("#token", token);
      await page.click("#connect button[type=submit]");
      await waitText(page, "#live-status", /^Connected to app test-app\. Results of its challenges appear below/);
    });

    it("When a visitor connects, creates and solves a challenge, then each attempt is listed live, also those made while the server had dropped the socket", async () => {
      expect(await page.inputValue("#token")).to.equal("");
      expect(page.url()).to.equal(`${node.url}/demo`);
      await page.click("#create button[type=submit]"); // the page's own example: 日本の首都は？ / 東京
      await waitText(page, "#created", /^Key: /);
      const key = (await text(page, "#created"))!.slice("Key: ".length);
      expect(await text(page, "#owner")).to.equal(
        "It belongs to app test-app: every attempt on it appears under Live results.",
      );
      await page.click("#load");
      await waitText(page, "#question-text", /./);
      expect(await text(page, "#question-text")).to.equal("日本の首都は？");
      await page.fill("#attempt", "大阪");
      await page.click("#solve button[type=submit]");
      await waitCount(page, 1);

      node.server.io.disconnectSockets(true);
      await waitText(page, "#live-status", /^Connection lost/);
      const api = challengeApi(node.url);
      await api.solve(key, "京都");
      await api.solve(key, "東京");
      await waitText(page, "#live-status", /Resumed: no result was missed\.$/);
      await waitCount(page, 3);
      await page.waitForTimeout(300);
      const { seen, ids } = await results(page);
      expect(seen).to.deep.equal([
        [key, "wrong"],
        [key, "wrong"],
        [key, "correct"],
      ]);
      expect(ids.size).to.equal(3);
      expect(problems).to.deep.equal([]);
    });

    it("When the visitor leaves and comes back in the same tab, then the page resumes after the last result shown; with a since the service does not hold, it says results may be missing", async () => {
      const api = challengeApi(node.url);
      const key = await api.createKey("q", "a", { authorization: `Bearer ${token}` });
      await api.solve(key, "1");
      await waitCount(page, 1);
      await page.goto("about:blank");
      await api.solve(key, "2");
      await api.solve(key, "a");
      await page.goto(`${node.url}/demo`); // token and last id were kept in this tab's sessionStorage
      await waitText(page, "#live-status", /^Connected to app test-app\. Resumed: no result was missed\.$/);
      await waitCount(page, 2);
      await page.waitForTimeout(300);
      expect((await results(page)).seen).to.deep.equal([
        [key, "wrong"],
        [key, "correct"],
      ]);

      await page.evaluate(() => sessionStorage.setItem("sigil-demo-since", "not-an-event-id"));
      await page.reload();
      await waitText(page, "#live-status", /Some results may be missing/);
      expect(await page.locator("#live-status").getAttribute("class")).to.equal("error");
      expect(problems).to.deep.equal([]);
    });

    it("When the token is refused, then the page says so and forgets it", async () => {
      await page.fill("#token", "not-a-token");
      await page.click("#connect button[type=submit]");
      await waitText(page, "#live-status", /\(invalid_token\)$/);
      expect(await page.evaluate(() => sessionStorage.length)).to.equal(0);
      expect(await text(page, "#live-status")).to.not.include("not-a-token");
    });
  },
  oneBackend("lmdb"),
);
