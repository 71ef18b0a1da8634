// npm run screenshots: the README's pictures, taken from the real pages. Starts a Sigil node (the
// embedded store, a free port), drives Debian's headless Chromium through sign-up, the developers
// console, consent and the account page, and writes PNGs to docs/screenshots/. Nothing is drawn.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { chromium, type Page } from "playwright-core";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUT = `${ROOT}docs/screenshots`;
const WIDTH = Number(process.env.SCREENSHOT_WIDTH ?? 420);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function waitReady(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the node did not start");
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${OUT}/${name}.png`, fullPage: true });
  console.log(`docs/screenshots/${name}.png`);
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const node = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", BASE_URL: url, LOG_LEVEL: "warn", REDIS_URL: "" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  // The app's own page, where consent lands.
  const app = createHttpServer((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("Pixel Pets"));
  const appPort = await freePort();
  await new Promise<void>((resolve) => app.listen(appPort, "127.0.0.1", resolve));
  const appUrl = `http://127.0.0.1:${appPort}`;
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  try {
    await waitReady(url);
    const context = await browser.newContext({ viewport: { width: WIDTH, height: 800 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    const dark = async (name: string) => {
      await page.emulateMedia({ colorScheme: "dark" });
      await shot(page, `${name}-dark`);
      await page.emulateMedia({ colorScheme: "light" });
    };

    await page.goto(`${url}/signin`);
    await shot(page, "signin");
    await dark("signin");

    await page.goto(`${url}/signup`);
    await page.fill("#username", "Ada L");
    await page.fill("#password", "correct horse battery");
    await page.click('button[type="submit"].wide');
    await shot(page, "signup-error");

    // A developer registers an app.
    await page.fill("#username", "ada");
    await page.fill("#display_name", "Ada Lovelace");
    await page.fill("#password", "correct horse battery");
    await Promise.all([page.waitForURL(`${url}/account`), page.click('button[type="submit"].wide')]);
    await page.goto(`${url}/developers`);
    await page.fill("#name", "Pixel Pets");
    await page.fill("#redirect_uri", `https://pixelpets.example/callback\n${appUrl}/callback`);
    await page.fill("#homepage", "https://pixelpets.example/");
    await Promise.all([page.waitForLoadState(), page.click('form[action="/developers"] button[type="submit"]')]);
    const clientId = (await page.textContent(".client-id"))!;
    const tokenForm = page.locator(`form[action="/developers/${clientId}/tokens"]`);
    await tokenForm.locator('input[name="name"]').fill("worker");
    await tokenForm.locator("select").selectOption("2592000");
    await Promise.all([page.waitForLoadState(), tokenForm.locator('button[type="submit"]').click()]);
    await shot(page, "developers");
    await dark("developers");

    // A person signs in to the app and is asked to allow it.
    await page.click('form[action="/signout"] button');
    await page.goto(`${url}/signup`);
    await page.fill("#username", "grace");
    await page.fill("#display_name", "Grace Hopper");
    await page.fill("#password", "correct horse battery");
    await Promise.all([page.waitForURL(`${url}/account`), page.click('button[type="submit"].wide')]);
    const authorize = `${url}/authorize?${new URLSearchParams({
      client_id: clientId,
      redirect_uri: "https://pixelpets.example/callback",
      response_type: "code",
      state: "xyz",
    })}`;
    await page.goto(authorize);
    await shot(page, "consent");
    await dark("consent");
    // Japanese needs a CJK font where Chromium runs (Debian: fonts-noto-cjk); without one it is skipped.
    if (spawnSync("fc-list", [":lang=ja"], { encoding: "utf8" }).stdout?.trim()) {
      await page.goto(`${authorize}&ui_locales=ja`);
      await shot(page, "consent-ja");
    } else console.warn("no Japanese font (fc-list :lang=ja): consent-ja.png skipped");
    await page.goto(`${authorize}&ui_locales=fr`);
    await shot(page, "consent-fr");

    // The account page once the app is allowed (the redirect to the app is not followed).
    await page.goto(
      authorize.replace(
        encodeURIComponent("https://pixelpets.example/callback"),
        encodeURIComponent(`${appUrl}/callback`),
      ),
    );
    await Promise.all([page.waitForURL(`${appUrl}/callback?**`), page.click('button[value="allow"]')]);
    await page.goto(`${url}/account`);
    await shot(page, "account");
    await dark("account");

    await page.goto(`${url}/authorize?client_id=nope`);
    await shot(page, "error");
  } finally {
    await browser.close();
    node.kill();
    app.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
