// docs/http-api.md#the-landing-page, CONTRACT §14: GET {auth_url}/ is a page — the service's name
// and a way to sign in; for a signed-in person, links to the account and the developers page — in
// five languages, with HEAD; a request that prefers JSON keeps the JSON 404 that / was before;
// with BASE_URL and AUTH_URL on two hosts, a browser on the API's host is sent to the pages' host.
import { expect } from "chai";
import { CATALOGS, type Locale } from "../src/i18n/index.js";
import { describeBackends, oneBackend } from "./support/backends.js";
import { http } from "./support/http.js";
import { englishLeft } from "./support/page-text.js";
import { PageClient } from "./support/pages.js";

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const htmlLang = (html: string) => /^<!doctype html><html lang="([^"]+)"/.exec(html)?.[1];
/** The <main> of a page: what the page itself says, apart from the header's menu and the footer. */
const mainOf = (html: string) => /<main[^>]*>([\s\S]*)<\/main>/.exec(html)?.[1] ?? "";
const title = (lang: Locale, service = "Sigil") => CATALOGS[lang]["home.title"].replace("{service}", service);

describeBackends(
  "The landing page",
  (backend) => {
    let base: string;
    beforeEach(async () => {
      base = (await backend.startNode({ SERVICE_NAME: "Acme ID" })).url;
    });

    it("When someone opens / signed out, then a page names the service and offers sign-in and sign-up, setting no cookie", async () => {
      const r = await http(base, "/", { headers: { accept: BROWSER_ACCEPT } });
      expect(r.status).to.equal(200);
      expect(r.headers["content-type"]).to.match(/^text\/html/);
      expect(r.headers["cache-control"]).to.equal("no-store");
      expect(String(r.headers["content-security-policy"])).to.match(/^default-src 'none'/);
      expect(r.headers["set-cookie"]).to.equal(undefined);
      expect(r.text).to.contain(`<h1>${title("en", "Acme ID")}</h1>`);
      expect(r.text).to.contain('<span class="service-name">Acme ID</span>');
      const main = mainOf(r.text);
      expect(main).to.contain('href="/signin"');
      expect(main).to.contain('href="/signup"');
      expect(main).to.not.contain('href="/account"');
      expect(r.text).to.not.contain("<script");
    });

    it("When a signed-in person opens /, then it says who they are and links to the account and the developers page", async () => {
      const ada = new PageClient(base);
      await ada.signUp("ada", "correct horse battery", "Ada <Lovelace>");
      const r = await ada.get("/", { accept: BROWSER_ACCEPT });
      expect(r.status).to.equal(200);
      const main = mainOf(r.text);
      expect(main).to.contain('<strong class="display-name">Ada &lt;Lovelace></strong>');
      expect(main).to.contain('<a href="/account">');
      expect(main).to.contain('<a href="/developers">');
      expect(main).to.not.contain('href="/signin"');
      // The header's menu of every signed-in page, with its sign-out form.
      expect(r.text).to.match(/<form method="post" action="\/signout"><input type="hidden" name="_csrf" value="[^"]+"/);
    });

    it("When the browser asks in another language (Accept-Language), then the page is in it, signed out and signed in, with no English left", async () => {
      const ada = new PageClient(base);
      await ada.signUp("ada", "correct horse battery", "Ada");
      for (const lang of ["fr", "de", "es", "ja"] as const) {
        for (const [who, c] of [
          ["signed out", new PageClient(base)],
          ["signed in", ada],
        ] as const) {
          const r = await c.get("/", { "accept-language": `${lang};q=0.9, en;q=0.5` });
          expect(r.status, `${lang} ${who}`).to.equal(200);
          expect(htmlLang(r.text), `${lang} ${who}`).to.equal(lang);
          expect(r.text, `${lang} ${who}`).to.contain(`<h1>${title(lang, "Acme ID")}</h1>`);
          expect(englishLeft(r.text, lang), `${lang} ${who}`).to.deep.equal([]);
        }
      }
    });

    it("When / is asked with HEAD, then it answers as GET does, without a body", async () => {
      const r = await http(base, "/", { method: "HEAD" });
      expect(r.status).to.equal(200);
      expect(r.headers["content-type"]).to.match(/^text\/html/);
      expect(r.text).to.equal("");
    });

    it("When an API client asks / for JSON, or with another method than GET or HEAD, then it gets the JSON 404 it got before", async () => {
      for (const method of ["GET", "HEAD", "POST", "DELETE"]) {
        const r = await http(base, "/", { method, headers: { accept: "application/json" } });
        expect(r.status, method).to.equal(404);
        expect(r.headers["content-type"], method).to.match(/^application\/json/);
        if (method !== "HEAD") expect(r.json, method).to.include({ error: "not_found" });
      }
      const ranked = await http(base, "/", { headers: { accept: "application/json, text/html;q=0.5" } });
      expect(ranked.status).to.equal(404);
      // No Accept at all gets the page; any other method than GET and HEAD, from a browser too, the JSON 404.
      expect((await http(base, "/")).status).to.equal(200);
      for (const method of ["POST", "PUT", "OPTIONS"]) {
        const other = await http(base, "/", { method, headers: { accept: BROWSER_ACCEPT } });
        expect(other.status, method).to.equal(404);
        expect(other.json, method).to.include({ error: "not_found" });
      }
    });

    it("When BASE_URL and AUTH_URL are two hosts, then / on the API's host sends a browser to the pages' host, and JSON clients still get 404", async () => {
      const split = await backend.startNode({
        BASE_URL: "https://api.example",
        AUTH_URL: "https://login.example",
        TRUST_PROXY: "loopback",
      });
      const onApi = await http(split.url, "/", { headers: { host: "api.example", accept: BROWSER_ACCEPT } });
      expect(onApi.status).to.equal(303);
      expect(onApi.headers.location).to.equal("https://login.example/");
      // Behind a trusted proxy, the host it forwards counts.
      const forwarded = await http(split.url, "/", {
        headers: { "x-forwarded-host": "api.example", "x-forwarded-proto": "https", accept: BROWSER_ACCEPT },
      });
      expect(forwarded.status).to.equal(303);
      expect(forwarded.headers.location).to.equal("https://login.example/");
      const json = await http(split.url, "/", { headers: { host: "api.example", accept: "application/json" } });
      expect(json.status).to.equal(404);
      expect(json.json).to.include({ error: "not_found" });
      for (const host of ["login.example", new URL(split.url).host]) {
        const page = await http(split.url, "/", { headers: { host, accept: BROWSER_ACCEPT } });
        expect(page.status, host).to.equal(200);
        expect(page.text, host).to.contain(`<h1>${title("en")}</h1>`);
      }
    });
  },
  oneBackend("redis"),
);
