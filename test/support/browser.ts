// Debian's headless Chromium, driven by playwright-core, for the browser suites. Where it is not
// installed the suites say so loudly and skip; under CI=true they fail instead, so a CI image
// without Chromium cannot pass by silently running none of them.
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type Page } from "playwright-core";
import { ensureClientBundle } from "./client-bundle.js";
import { IN_CI } from "./redis.js";

export const CHROMIUM = "/usr/bin/chromium";

/** Call in a before() hook: skips the suite (loudly) without Chromium, fails it in CI. */
export function requireChromium(ctx: Mocha.Context): void {
  if (existsSync(CHROMIUM)) return;
  if (IN_CI) throw new Error(`${CHROMIUM} is missing: the browser suites are mandatory in CI (CI=true)`);
  console.warn(`\n  !!! ${CHROMIUM} is missing: SKIPPING the browser suites (apt-get install -y chromium). !!!\n`);
  ctx.skip();
}

// One Chromium per process (a mocha worker runs file after file), launched by the first suite that
// asks: a launch costs a second or more of CPU, and some twenty suites ask. Suites stay apart as
// before: each page lives in a context of its own (browser.newPage() makes one), and a suite's
// close() closes every context it left, so nothing of one suite (a page still polling a node
// that is gone, cookies) reaches the next. The browser itself ends with the process (playwright
// kills what it launched when the process exits; mocha ends its workers when the run is done),
// or in closeSharedChromium() for a run without workers (hooks.ts), where it would hold mocha open.
let shared: Promise<Browser> | undefined;

function sharedBrowser(): Promise<Browser> {
  const current = shared;
  if (current) {
    return current.then(
      (b) => (b.isConnected() ? b : ((shared = undefined), sharedBrowser())),
      () => ((shared = undefined), sharedBrowser()),
    );
  }
  shared = chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  return shared;
}

/** Closes this process's browser, if it launched one (the root hooks, for a run without workers). */
export async function closeSharedChromium(): Promise<void> {
  const current = shared;
  shared = undefined;
  await (await current?.catch(() => undefined))?.close();
}

/**
 * Call in a before() hook: requireChromium, then the process's headless browser (background
 * networking off so it only talks to the test's servers). Its close() (in the suite's after hook)
 * closes every context and page the suite opened, and leaves the browser to the next suite.
 */
export async function launchChromium(ctx: Mocha.Context): Promise<Browser> {
  requireChromium(ctx);
  const browser = await sharedBrowser();
  const closeContexts = async () => {
    await Promise.all(browser.contexts().map((c) => c.close()));
  };
  return new Proxy(browser, {
    get(target, prop) {
      if (prop === "close") return closeContexts;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Registers a suite's hooks for Chromium — launchChromium in before(), its close() in after() — and
 * returns the browser for the suite's tests and hooks (a stand-in that forwards to it once launched).
 */
export function suiteBrowser(timeoutMs = 60_000): Browser {
  let browser: Browser | undefined;
  before(async function () {
    this.timeout(timeoutMs);
    browser = await launchChromium(this);
  });
  after(async () => {
    await browser?.close();
  });
  return new Proxy({} as Browser, {
    get(_target, prop) {
      if (!browser) throw new Error("the suite's browser is used before its before() hook launched it");
      const value: unknown = Reflect.get(browser, prop, browser);
      return typeof value === "function" ? value.bind(browser) : value;
    },
  });
}

/** The page's uncaught errors and console errors, collected as they happen, for "no problems" assertions. */
export function collectProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console: ${msg.text()}`);
  });
  return problems;
}

/**
 * Registers the hooks of a suite whose pages load the client bundle: Chromium and the bundle once
 * for the suite, and a fresh page per test, handed to onPage with its problems (before the suite's
 * own beforeEach hooks, which run after this one).
 */
export function pagePerTest(onPage: (page: Page, problems: string[]) => void): void {
  let browser: Browser;
  let page: Page | undefined;
  before(async function () {
    this.timeout(60_000);
    browser = await launchChromium(this);
    ensureClientBundle();
  });
  after(() => browser?.close());
  beforeEach(async () => {
    page = await browser.newPage();
    onPage(page, collectProblems(page));
  });
  afterEach(() => page?.close());
}

export interface ServedPage {
  url: string;
  close(): Promise<void>;
}

/** One HTML page served on its own loopback origin (an app's page, beside the service's). */
export async function servePage(html: string): Promise<ServedPage> {
  const server = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
