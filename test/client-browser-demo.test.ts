// The /demo page's live results, driven in headless Chromium as a visitor would: paste a CUSTOM
// TOKEN, create a challenge in Japanese (it belongs to the token's app), read it back, solve it,
// and watch every attempt arrive over the socket — across a server-side disconnect and a reload,
// each once and in order — and be told when results may be missing; and subscribe to a channel,
// publish to it from the page and over HTTP, and see every message listed once, in order, across a
// server-side disconnect.
import { expect } from "chai";
import type { Page } from "playwright-core";
import { describeBackends, oneBackend } from "./support/backends.js";
import { pagePerTest } from "./support/browser.js";
import { challengeApi } from "./support/http.js";
import { publishWith } from "./support/channel.js";
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
/** The channel's list as the visitor sees it: the text of each message, and their ids. */
const channelMessages = (page: Page) =>
  page
    .locator("#channel-messages li")
    .evaluateAll((lis) =>
      lis.map((li) => ({ id: (li as HTMLElement).dataset.id!, text: li.querySelector("code")!.textContent! })),
    );
const waitMessages = (page: Page, n: number) =>
  page.waitForFunction((n) => document.querySelectorAll("#channel-messages li").length >= n, n);

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

    it("When a visitor subscribes to a channel and publishes from the page and over HTTP, then each message is listed once and in order, also those published while the server had dropped the socket; a token without --publish is told why", async () => {
      // The token of beforeEach was made without --publish: the page shows the 403's reason.
      await page.fill("#channel", "news");
      await page.click("#subscribe button[type=submit]");
      await waitText(page, "#channel-status", /^Subscribed to news: its messages appear below/);
      await page.click("#publish button[type=submit]");
      await waitText(page, "#published", /\(forbidden\)$/);
      expect(await page.locator("#published").getAttribute("class")).to.equal("error");

      const { token: publisher } = await node.server.customTokens.create({ app: "test-app", publish: true });
      await page.fill("#token", publisher);
      await page.click("#connect button[type=submit]");
      await waitText(page, "#live-status", /^Connected to app test-app\./);
      expect(await text(page, "#channel-status")).to.equal("Not subscribed.");
      await page.fill("#channel", "room:1");
      await page.click("#subscribe button[type=submit]");
      await waitText(page, "#channel-status", /^Subscribed to room:1: /);
      await page.click("#publish button[type=submit]"); // the page's example, JSON
      await waitText(page, "#published", /^Published to room:1 as \d+-\d+\.$/);
      const first = /as (\d+-\d+)\.$/.exec((await text(page, "#published")) ?? "")![1]!;
      await page.fill("#message", "<b>plain text</b>");
      await page.click("#publish button[type=submit]");
      // Its own id, not the first one's still on the page: published before the HTTP ones below.
      await waitText(page, "#published", new RegExp(`^Published to room:1 as (?!${first}\\.)\\d+-\\d+\\.$`));
      const api = (data: unknown) => publishWith(node.url, publisher, { channel: "room:1", data });
      expect((await api({ n: 3 })).status).to.equal(200);
      expect((await api("a string")).status).to.equal(200);
      await waitMessages(page, 4);

      node.server.io.disconnectSockets(true);
      await waitText(page, "#live-status", /^Connection lost/);
      expect((await api({ n: 5 })).status).to.equal(200);
      expect((await api({ n: 6 })).status).to.equal(200);
      await waitText(page, "#channel-status", /^Resumed room:1: no message was missed\.$/);
      await waitMessages(page, 6);
      await page.waitForTimeout(300);
      const list = await channelMessages(page);
      expect(list.map((m) => m.text)).to.deep.equal([
        '{"text":"こんにちは"}',
        "<b>plain text</b>",
        '{"n":3}',
        "a string",
        '{"n":5}',
        '{"n":6}',
      ]);
      expect(new Set(list.map((m) => m.id)).size).to.equal(6);
      expect(await page.locator("#channel-messages b").count()).to.equal(0);
      expect(page.url()).to.equal(`${node.url}/demo`);
      // The browser notes the refused publish; nothing else went wrong.
      expect(problems).to.deep.equal([
        "console: Failed to load resource: the server responded with a status of 403 (Forbidden)",
      ]);
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
