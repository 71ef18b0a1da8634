// The languages the pages speak, and how one is chosen for a request (docs/pages.md#languages):
// the app's `ui_locales` (OpenID Connect), then the `lang` cookie set by the language menu, then
// the browser's Accept-Language, then English. Pure: no HTTP here, only the strings they carry.

export const LOCALES = ["en", "fr", "de", "es", "ja"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";

/** Each language's name in that language, for the language menu. */
export const LANGUAGE_NAMES: Readonly<Record<Locale, string>> = {
  en: "English",
  fr: "Français",
  de: "Deutsch",
  es: "Español",
  ja: "日本語",
};

export function isLocale(v: unknown): v is Locale {
  return typeof v === "string" && (LOCALES as readonly string[]).includes(v);
}

/** The supported language for one BCP 47 tag ("fr-CA" → "fr"), or undefined. */
export function localeOf(tag: string): Locale | undefined {
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0] ?? "";
  return isLocale(primary) ? primary : undefined;
}

/** The first supported tag of a space-separated `ui_locales` list (OpenID Connect Core §3.1.2.1). */
export function fromUiLocales(raw: string | undefined): Locale | undefined {
  if (!raw) return undefined;
  for (const tag of raw.slice(0, 500).split(/\s+/)) {
    const l = localeOf(tag);
    if (l) return l;
  }
  return undefined;
}

/** The best supported language of an Accept-Language header (RFC 9110 §12.5.4), or undefined. */
export function fromAcceptLanguage(raw: string | undefined): Locale | undefined {
  if (!raw) return undefined;
  const ranked = raw
    .slice(0, 1000)
    .split(",")
    .map((part, i) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/i.exec(p)?.[1]).find((x) => x !== undefined);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((r) => r.tag && r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranked) {
    const l = localeOf(r.tag);
    if (l) return l;
  }
  return undefined;
}

/** The page's language: ui_locales, then the cookie, then Accept-Language, then English. */
export function negotiate(input: {
  uiLocales?: string | undefined;
  cookie?: string | undefined;
  acceptLanguage?: string | undefined;
}): Locale {
  return (
    fromUiLocales(input.uiLocales) ??
    (isLocale(input.cookie) ? input.cookie : undefined) ??
    fromAcceptLanguage(input.acceptLanguage) ??
    DEFAULT_LOCALE
  );
}
