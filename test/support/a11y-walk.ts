// What the page walks of CONTRACT §12 share (test/browser-pages-a11y*.test.ts): one browser and one
// node (the look does not depend on the store), with a developer (devon) whose app (Pixel Pets:
// a homepage, a token) comes back to a page of the test's own; and the check of a page in a state:
// the stylesheet applied under the pages' CSP, no axe violation in light or dark, nothing
// scrolling sideways at 360 px. The walk is split over files so that mocha's parallel workers
// share it (one file of it took 55–105 s, the longest of a run).
import { expect } from "chai";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { a11yProblems } from "./axe.js";
import { describeBackends, type Backend } from "./backends.js";
import { launchChromium, servePage, type ServedPage } from "./browser.js";
import type { TestNode } from "./nodes.js";
import { PageClient, csrfOf } from "./pages.js";

export const PASSWORD = "correct horse battery";

/** A page reached in a state: the state's name, and how to reach it (and check what it shows). */
export type PageState = [string, () => Promise<unknown>];

/** What a walk's tests use: filled in before each test. */
export interface Walk {
  browser: Browser;
  backend: Backend;
  node: TestNode;
  clientId: string;
  redirectUri: string;
  /** Pixel Pets' /authorize URL (state "st"). */
  authorizeUrl(): string;
  /** A page of `context` signed in as `username` (on /account). */
  signedIn(context: BrowserContext, username: string): Promise<Page>;
}

/** The focused element's outline, for "a visible focus". */
export const focusRing = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const s = getComputedStyle(el);
    return { tag: el.tagName, style: s.outlineStyle, width: parseFloat(s.outlineWidth) };
  });

/**
 * Reaches each state on `page` in turn and checks it: the stylesheet applied (the CSP allowed it),
 * then axe in light and dark and the width at 360 px. Returns every problem found, one line each.
 */
export async function walkStates(page: Page, states: PageState[], opts = { stylesheet: true }): Promise<string[]> {
  const problems: string[] = [];
  for (const [what, reach] of states) {
    await reach();
    if (opts.stylesheet)
      expect(await page.evaluate(() => getComputedStyle(document.body).display), what).to.equal("flex");
    problems.push(...(await a11yProblems(page, what)));
  }
  return problems;
}

/** A suite of the walk: its tests get `walk` filled in (a fresh node, devon and his app each). */
export function describeWalk(title: string, fn: (walk: Walk) => void): void {
  describeBackends(
    title,
    (backend) => {
      let appPage: ServedPage;
      const walk = { backend } as Walk;
      walk.authorizeUrl = () =>
        `${walk.node.url}/authorize?${new URLSearchParams({ client_id: walk.clientId, redirect_uri: walk.redirectUri, state: "st" })}`;
      walk.signedIn = async (context, username) => {
        const page = await context.newPage();
        await page.goto(`${walk.node.url}/signin`);
        await page.fill("#username", username);
        await page.fill("#password", PASSWORD);
        await Promise.all([page.waitForURL(`${walk.node.url}/account`), page.click("main button[type=submit]")]);
        return page;
      };

      before(async function () {
        this.timeout(180_000);
        walk.browser = await launchChromium(this);
        appPage = await servePage(
          `<!doctype html><html lang="en"><title>Back at the app</title><h1>Back at the app</h1>`,
        );
        walk.redirectUri = `${appPage.url}/callback`;
      });
      after(async () => {
        await walk.browser?.close();
        await appPage?.close();
      });
      beforeEach(async () => {
        walk.node = await backend.startNode();
        // A developer with an app (homepage, a token) and a person who allowed it.
        const dev = new PageClient(walk.node.url);
        await dev.signUp("devon", PASSWORD, "Devon");
        const page = await dev.get("/developers");
        const made = await dev.post("/developers", {
          _csrf: csrfOf(page.text),
          name: "Pixel Pets",
          redirect_uri: walk.redirectUri,
          homepage: "https://pixelpets.example/",
        });
        walk.clientId = /class="client-id">([^<]+)</.exec(made.text)![1]!;
        await dev.post(`/developers/${walk.clientId}/tokens`, {
          _csrf: csrfOf(made.text),
          name: "worker",
          expires_in: "",
        });
      });

      fn(walk);
    },
    ["memory"],
  );
}
