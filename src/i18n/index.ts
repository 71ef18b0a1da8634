// One language's strings and formats for a page: t() for a catalog string, rich() for one with
// markup in its placeholders, date() and number() through Intl, and message() for the
// service's error messages by id (i18n/message-ids.ts). See docs/pages.md for how a page uses it.
import type { ComponentChild } from "preact";
import type { Locale } from "./locales.js";
import { de } from "./messages/de/index.js";
import { en, type MessageKey, type Messages } from "./messages/en/index.js";
import { es } from "./messages/es/index.js";
import { fr } from "./messages/fr/index.js";
import { ja } from "./messages/ja/index.js";
import { FIELDS, fill, renderMessage, type MessageRef } from "./message-ids.js";

export type { Locale } from "./locales.js";
export type { MessageKey, Messages } from "./messages/en/index.js";
export type { ErrorId, MessageRef } from "./message-ids.js";
export { LOCALES, LANGUAGE_NAMES, DEFAULT_LOCALE, negotiate, isLocale } from "./locales.js";

export const CATALOGS: Readonly<Record<Locale, Messages>> = { en, fr, de, es, ja };

export type Params = Readonly<Record<string, string | number>>;

export interface Translator {
  readonly locale: Locale;
  /** The catalog string for `key`, placeholders filled (numbers formatted for the language). */
  t(key: MessageKey, params?: Params): string;
  /** The catalog string for `key` as children, placeholders replaced by elements or text. */
  rich(key: MessageKey, params: Readonly<Record<string, ComponentChild>>): ComponentChild[];
  /** A date and time (UTC, named so) in the language's format. */
  date(ms: number): string;
  number(n: number, options?: Intl.NumberFormatOptions): string;
  /** A message the service raised (a SigilError, a MessageRef), in this language, and its form field. */
  message(ref: MessageRef): { text: string; field: string | undefined };
}

export function translator(locale: Locale): Translator {
  const messages = CATALOGS[locale];
  const numbers = new Intl.NumberFormat(locale);
  const dates = new Intl.DateTimeFormat(locale, {
    dateStyle: "medium",
    timeStyle: "medium",
    timeZone: "UTC",
  });
  const fmt = (params: Params = {}) =>
    Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === "number" ? numbers.format(v) : v]));
  return {
    locale,
    t: (key, params) => fill(messages[key], fmt(params)),
    rich: (key, params) =>
      messages[key]
        .split(/(\{\w+\})/)
        .filter((part) => part !== "")
        .map((part) => {
          const name = /^\{(\w+)\}$/.exec(part)?.[1];
          return name !== undefined && name in params ? (params[name] ?? null) : part;
        }),
    date: (ms) => `${dates.format(new Date(ms))} UTC`,
    number: (n, options) => new Intl.NumberFormat(locale, options).format(n),
    message: (ref) => ({ text: renderMessage(messages, ref, (n) => numbers.format(n)), field: FIELDS[ref.id] }),
  };
}
