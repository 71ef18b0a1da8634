// docs/pages.md#languages: the five catalogs are complete and consistent, every message the service
// raises has a translation (its id is a catalog key: the compiler checks that), and the language is
// chosen in the documented order.
import { expect } from "chai";
import { SigilError, invalidRequest } from "../src/errors.js";
import { CATALOGS, LOCALES, negotiate, translator, type MessageKey } from "../src/i18n/index.js";
import { FIELDS, english, message } from "../src/i18n/message-ids.js";
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
  // "No" is the Spanish word too.
  "adminUsers.no",
  // "Apps" and "Name" are the German words too (the admin home says "Apps:" already).
  "adminApps.title",
  "adminApps.name",
  // "CUSTOM TOKEN" is the name of a kind of token (the CLI and the docs use it), not a word.
  "demo.token",
  // "correct" is the French word too.
  "demo.verdictCorrect",
  // "webhook" is the word French and Spanish developers use too.
  "dev.kindWebhook",
  // "{name}: {who}" (a linked identity on /account) has no words; French spaces its colon.
  "account.upstreamOf",
  // "GitHub" (a kind of upstream provider on /admin/upstreams) is a name.
  "adminUpstreams.kindGithub",
]);

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

  it("When an error id is read, then every catalog has it, with the same placeholders as English", () => {
    const ids = KEYS.filter((k) => k.startsWith("err."));
    expect(ids.length).to.be.above(100);
    for (const locale of LOCALES) {
      for (const id of ids) {
        expect(CATALOGS[locale][id], `${locale} ${id}`).to.be.a("string").and.not.equal("");
        expect(placeholders(CATALOGS[locale][id]), `${locale} ${id}`).to.deep.equal(placeholders(en[id]));
      }
    }
    for (const id of Object.keys(FIELDS)) expect(KEYS, id).to.include(id);
  });

  it("When an error is raised, then its id is a catalog key and its values are its placeholders (checked by the compiler)", () => {
    // @ts-expect-error: an id that is not a key of the catalogs does not compile.
    const unknown = () => invalidRequest("err.noSuchMessage");
    // @ts-expect-error: a message with a placeholder does not compile without its value.
    const missing = () => message("err.notAbsolute");
    // @ts-expect-error: nor with a value of another name.
    const misnamed = () => message("err.notAbsolute", { uri: "x" });
    const headersAsValues = () =>
      // @ts-expect-error: nor with response headers where the values go (a message without placeholders takes {}).
      new SigilError(401, "invalid_client", "err.invalidClient", { "WWW-Authenticate": "Basic" });
    expect([unknown, missing, misnamed, headersAsValues]).to.have.length(4);
    const e = new SigilError(400, "invalid_request", "err.notAbsolute", { url: "ftp:/x" });
    expect(e.toBody()).to.deep.equal({
      error: "invalid_request",
      error_description: '"ftp:/x" is not an absolute URL.',
    });
    expect(e.message).to.equal(e.description);
  });

  it("When a raised message is shown, then it is translated from its id with its values and names its field", () => {
    const fr = translator("fr");
    expect(fr.message(message("err.taken"))).to.deep.equal({
      text: "Ce nom d’utilisateur est déjà pris.",
      field: "username",
    });
    const big = fr.message(message("err.pictureTooLarge", { width: "9000", height: "20" }));
    expect(big.text).to.contain("9000×20").and.to.contain("8 000");
    expect(big.field).to.equal("picture");
    // A number is formatted for the language on a page, and plainly in the JSON API's English.
    expect(fr.message(message("err.passkeyLimit", { max: 2000 })).text).to.match(/^Un compte contient au plus 2\s000 /);
    expect(english(message("err.passkeyLimit", { max: 2000 }))).to.equal(
      "An account holds at most 2000 passkeys; remove one first.",
    );
    // A message inside a message is translated too.
    expect(
      translator("de").message(message("err.postLogoutProblem", { problem: message("err.redirectFragment") })),
    ).to.deep.equal({
      text: "Weiterleitungs-URL nach der Abmeldung: Weiterleitungs-URLs dürfen kein Fragment (#) enthalten.",
      field: "post_logout_redirect_uri",
    });
    // The page's words do not depend on the English ones: the id alone picks the entry.
    const ja = translator("ja").message(new SigilError(409, "invalid_request", "err.taken", {}));
    expect(ja.text).to.equal(CATALOGS.ja["err.taken"]);
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
