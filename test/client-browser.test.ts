// The browser bundle in a real headless Chromium: a page on another origin loads /client.js
// from the service and uses the global `Sigil` with text no browser can put in a header; and
// the service's own /demo page works end to end under its CSP.
import { expect } from "chai";
import type { Page } from "playwright-core";
import type * as SigilModule from "../client/src/index.js";
import { describeBackends } from "./support/backends.js";
import { pagePerTest, servePage } from "./support/browser.js";
import { challengeApi } from "./support/http.js";

declare const Sigil: typeof SigilModule;

/** Runs `use` with `page` open on an app's page on its own origin that loads the client from the service. */
async function onAppPage(page: Page, sigilUrl: string, use: () => Promise<void>): Promise<void> {
  const app = await servePage(
    `<!doctype html><meta charset="utf-8"><title>app</title><script src="${sigilUrl}/client.js"></script>`,
  );
  try {
    await page.goto(`${app.url}/`);
    await use();
  } finally {
    await app.close();
  }
}

describeBackends(
  "Client in a browser",
  (backend) => {
    let page: Page;
    let problems: string[];
    pagePerTest((p, seen) => {
      page = p;
      problems = seen;
    });

    it("When an app's page on another origin loads /client.js, then it creates, reads and solves a challenge in Japanese", async () => {
      const node = await backend.startNode();
      await onAppPage(page, node.url, async () => {
        const out = await page.evaluate(async () => {
          // No baseUrl: the client takes the address it was loaded from.
          const sigil = Sigil.createClient();
          const { key } = await sigil.challenges.create({ question: "日本の首都は？", answer: "東京", ttl: 600 });
          const question = await sigil.challenges.question(key);
          const wrong = await sigil.challenges.solve(key, "大阪");
          const right = await sigil.challenges.solve(key, "東京");
          let error: unknown;
          try {
            await sigil.challenges.question("0b7c3d38-2b8a-4f5e-9a39-6a0d2d0c1e11");
          } catch (e) {
            error = e instanceof Sigil.SigilError ? { code: e.code, status: e.status } : String(e);
          }
          return { baseUrl: sigil.baseUrl, key, question, wrong, right, error };
        });
        expect(out.baseUrl).to.equal(node.url);
        expect(out.question).to.equal("日本の首都は？");
        expect(out.wrong).to.deep.equal({ correct: false });
        expect(out.right).to.deep.equal({ correct: true });
        expect(out.error).to.deep.equal({ code: "not_found", status: 404 });
        // The service holds exactly what the browser sent.
        expect((await challengeApi(node.url).question(out.key)).text).to.equal("日本の首都は？");
        expect(problems.filter((p) => !p.includes("404"))).to.deep.equal([]);
      });
    });

    it("When too many wrong answers come from the browser, then it sees rate_limited with retryAfter (Retry-After is exposed)", async () => {
      const node = await backend.startNode();
      await onAppPage(page, node.url, async () => {
        const out = await page.evaluate(async () => {
          const sigil = Sigil.createClient();
          const { key } = await sigil.challenges.create({ question: "Größe?", answer: "groß" });
          for (let i = 0; i < 10; i++) await sigil.challenges.solve(key, `falsch ${i}`);
          try {
            await sigil.challenges.solve(key, "groß");
            return "no error";
          } catch (e) {
            return e instanceof Sigil.SigilError
              ? { code: e.code, status: e.status, retryAfter: e.retryAfter }
              : String(e);
          }
        });
        expect(out).to.deep.include({ code: "rate_limited", status: 429 });
        expect((out as { retryAfter: number }).retryAfter).to.be.within(1, 600);
      });
    });

    it("When someone uses the /demo page, then it creates a challenge, shows its key, and solves it", async () => {
      const node = await backend.startNode();
      await page.goto(`${node.url}/demo`);
      await page.fill("#question", "Was ist 6 × 7? 🦊");
      await page.fill("#answer", "zweiundvierzig");
      await page.click("#create button[type=submit]");
      await page.waitForFunction(() => document.getElementById("created")!.textContent!.startsWith("Key: "));
      const key = (await page.textContent("#created"))!.slice("Key: ".length);
      expect(await page.inputValue("#key")).to.equal(key);
      expect(await page.getAttribute("#share", "href")).to.equal(`${node.url}/demo#key=${key}`);

      await page.click("#load");
      await page.waitForFunction(() => document.getElementById("question-text")!.textContent !== "");
      expect(await page.textContent("#question-text")).to.equal("Was ist 6 × 7? 🦊");

      await page.fill("#attempt", "41");
      await page.click("#solve button[type=submit]");
      await page.waitForFunction(() => document.getElementById("result")!.textContent !== "");
      expect(await page.textContent("#result")).to.equal("Not correct; try again.");
      await page.fill("#attempt", "zweiundvierzig");
      await page.click("#solve button[type=submit]");
      await page.waitForFunction(() => document.getElementById("result")!.textContent === "Correct!");
      expect(problems).to.deep.equal([]);
    });

    it("When the demo is opened with a shared key, then it shows that challenge's question", async () => {
      const node = await backend.startNode();
      const key = await challengeApi(node.url).createKey("shared?", "yes");
      await page.goto(`${node.url}/demo#key=${key}`);
      await page.waitForFunction(() => document.getElementById("question-text")!.textContent !== "");
      expect(await page.textContent("#question-text")).to.equal("shared?");
      expect(problems).to.deep.equal([]);
    });
  },
  ["memory"],
);
