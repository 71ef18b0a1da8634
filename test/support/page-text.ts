// What a person reads on an HTML page: its text and the words in its attributes (alt, labels,
// titles), and the English catalog strings left on a page that should be in another language.
import { CATALOGS, type Locale, type MessageKey } from "../../src/i18n/index.js";
import { decodeHtml } from "./pages.js";

/** The page's visible words: text between tags, alt / aria-label / title / placeholder values. */
export function pageWords(html: string): string {
  const attrs = [...html.matchAll(/\s(?:alt|aria-label|title|placeholder|data-label)="([^"]*)"/g)].map((m) => m[1]!);
  const text = html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");
  return decodeHtml(`${text} ${attrs.join(" ")}`).replace(/&#x27;/g, "'");
}

/** Per language: each English phrase to look for (see englishLeft), with its key and its pattern. */
const phrasesOf = new Map<Locale, Array<{ key: MessageKey; phrase: string; pattern: RegExp }>>();

function phrasesFor(locale: Locale): Array<{ key: MessageKey; phrase: string; pattern: RegExp }> {
  let found = phrasesOf.get(locale);
  if (found) return found;
  const en = CATALOGS.en;
  const other = CATALOGS[locale];
  found = [];
  for (const key of Object.keys(en) as MessageKey[]) {
    if (other[key] === en[key]) continue;
    for (const part of en[key].split(/\{\w+\}/)) {
      const phrase = part.trim().replace(/^[\s.,;:()“”"']+|[\s.,;:()“”"']+$/g, "");
      if (phrase.length < 4 || !/[a-z]{3}/i.test(phrase)) continue;
      if (other[key].includes(phrase)) continue;
      const escaped = phrase.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      found.push({ key, phrase, pattern: new RegExp(`(^|[^\\p{L}])${escaped}($|[^\\p{L}])`, "u") });
    }
  }
  phrasesOf.set(locale, found);
  return found;
}

/**
 * The English catalog phrases on a page in `locale`: each English string (the parts between its
 * placeholders) that the language says otherwise, found as words on the page. (The phrases are
 * worked out once per language, and a phrase that is not in the text at all is passed over before
 * its word-boundary pattern runs: a few thousand patterns a page were most of a language suite's CPU.)
 */
export function englishLeft(html: string, locale: Locale): string[] {
  const words = pageWords(html);
  const left = new Set<string>();
  for (const { key, phrase, pattern } of phrasesFor(locale)) {
    if (words.includes(phrase) && pattern.test(words)) left.add(`${key}: ${phrase}`);
  }
  return [...left];
}
