// docs/pages.md#languages: the five catalogs are complete and consistent, every message a page can
// show has a translation, and the language is chosen in the documented order.
import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { matchMessage } from "../src/i18n/errors.js";
import { CATALOGS, LOCALES, negotiate, translator, type MessageKey } from "../src/i18n/index.js";
import { fromAcceptLanguage, fromUiLocales } from "../src/i18n/locales.js";

const en = CATALOGS.en;
const KEYS = Object.keys(en) as MessageKey[];
const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/** Values that are the same in every language: names and formats, not words. */
const SAME_EVERYWHERE = new Set<MessageKey>([
  "layout.title",
  "form.optional",
  "consent.type",
  "tokens.colStatus",
  "tokens.colName",
  "tokens.colActions",
  // "Passkeys" is the word German uses too (Apple, Google, Microsoft).
  "passkeys.title",
  // "Browser: {browser}" in a security mail: "Browser" is the German word too.
  "mail.security.browser",
]);

/** The files whose messages reach a page, and the calls that raise them. */
const SOURCES = [
  "src/domain/accounts.ts",
  "src/domain/apps.ts",
  "src/domain/pictures.ts",
  "src/domain/redirect-uris.ts",
  "src/errors.ts",
  "src/http/route.ts",
  "src/http/oauth/authorize.ts",
  "src/http/oauth/logout.ts",
  ...readdirSync("src/http/pages").map((f) => `src/http/pages/${f}`),
];
const STR = String.raw`(["\x60])((?:\\.|(?!\1)[^\\])*)\1`;
const RAISES = [
  String.raw`new FormError\(\s*`,
  String.raw`new SigilError\(\s*\d+,\s*"[a-z_]+",\s*`,
  String.raw`rateLimited\([^,]+,\s*`,
  String.raw`notFound\(\s*`,
  String.raw`invalidRequest\(\s*`,
  String.raw`problem: `,
  String.raw`return void bad\(\s*`,
  String.raw`redirectUriProblem[\s\S]*?return `,
].map((prefix) => new RegExp(prefix + STR, "g"));

describe("The pages' languages", () => {
  it("When a catalog is read, then it has every English key, the same placeholders, and no empty value", () => {
    for (const locale of LOCALES) {
      const c = CATALOGS[locale];
      expect(Object.keys(c).sort(), locale).to.deep.equal([...KEYS].sort());
      for (const k of KEYS) {
        expect(c[k].trim(), `${locale} ${k}`).to.not.equal("");
        expect(placeholders(c[k]), `${locale} ${k}`).to.deep.equal(placeholders(en[k]));
      }
    }
  });

  it("When a language is not English, then its strings are translations, not English copies", () => {
    for (const locale of LOCALES.filter((l) => l !== "en")) {
      const copies = KEYS.filter((k) => !SAME_EVERYWHERE.has(k) && CATALOGS[locale][k] === en[k]);
      expect(copies, locale).to.deep.equal([]);
    }
  });

  it("When the source raises a message a page shows, then a catalog template matches it", () => {
    const unknown: string[] = [];
    let found = 0;
    for (const file of SOURCES) {
      const text = readFileSync(file, "utf8");
      for (const re of RAISES) {
        for (const m of text.matchAll(re)) {
          const message = m[2]!.replace(/\$\{[^}]*\}/g, "X");
          found++;
          if (!matchMessage(message)) unknown.push(`${file}: ${message}`);
        }
      }
    }
    expect(found).to.be.above(25);
    expect(unknown).to.deep.equal([]);
  });

  it("When a raised message is shown, then it is translated with its values and names its field", () => {
    const fr = translator("fr");
    expect(fr.message("That username is taken.")).to.deep.equal({
      text: "Ce nom d’utilisateur est déjà pris.",
      field: "username",
    });
    const big = fr.message(
      "The picture is 9000×20 pixels; pictures may be at most 8,000 pixels on each side and 40 megapixels.",
    );
    expect(big.text).to.contain("9000×20").and.to.contain("8 000");
    expect(big.field).to.equal("picture");
    // A message inside a message is translated too.
    expect(
      translator("de").message("Post-logout redirect URL: Redirect URLs cannot hold a fragment (#)."),
    ).to.deep.equal({
      text: "Weiterleitungs-URL nach der Abmeldung: Weiterleitungs-URLs dürfen kein Fragment (#) enthalten.",
      field: "post_logout_redirect_uri",
    });
    expect(translator("ja").message("Something only a newer version says.")).to.deep.equal({
      text: "Something only a newer version says.",
      field: undefined,
    });
  });

  it("When dates and numbers are shown, then Intl formats them for the language", () => {
    const at = Date.UTC(2026, 10, 23, 16, 5);
    // ICU versions differ on the kind of space (U+0020 or U+202F): compare with plain spaces.
    const plain = (s: string) => s.replace(/\s/g, " ");
    expect(plain(translator("en").date(at))).to.equal("Nov 23, 2026, 4:05:00 PM UTC");
    expect(plain(translator("de").date(at))).to.equal("23.11.2026, 16:05:00 UTC");
    expect(plain(translator("ja").date(at))).to.equal("2026/11/23 16:05:00 UTC");
    expect(plain(translator("fr").number(8000))).to.equal("8 000");
    expect(translator("de").number(8000)).to.equal("8.000");
  });

  it("When a language is chosen, then ui_locales beats the cookie, which beats Accept-Language", () => {
    expect(negotiate({ uiLocales: "ja fr", cookie: "de", acceptLanguage: "es" })).to.equal("ja");
    expect(negotiate({ uiLocales: "pt-BR", cookie: "de", acceptLanguage: "es" })).to.equal("de");
    expect(negotiate({ cookie: "de", acceptLanguage: "es" })).to.equal("de");
    expect(negotiate({ cookie: "xx", acceptLanguage: "es-MX,en;q=0.5" })).to.equal("es");
    expect(negotiate({})).to.equal("en");
    expect(fromUiLocales("zh-Hant fr-CA")).to.equal("fr");
    expect(fromAcceptLanguage("en;q=0.2, ja;q=0.9, *;q=0.1")).to.equal("ja");
    expect(fromAcceptLanguage("de;q=0, fr")).to.equal("fr");
    expect(fromAcceptLanguage("zz, ,;;q=x")).to.equal(undefined);
  });
});
