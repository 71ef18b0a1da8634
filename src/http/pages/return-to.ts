// `return_to` (docs/http-api.md#pages): only ever a path on this service, checked after normalisation.

/**
 * The path (and query) to continue to, or `fallback` when `raw` could lead anywhere else.
 *
 * The raw value must look like a path: it starts with "/" and holds no backslash and no control
 * character (the URL parser would silently drop tabs and newlines, and read "\" as "/", turning
 * "/\t/evil" into "//evil"). It is then resolved against the service's own address with the WHATWG
 * URL parser, and the *result* is checked: same origin, and a path that neither starts with "//" or
 * "/\" (a browser reads such a Location as another host: "/.//evil" normalises to "//evil") nor
 * holds an encoded slash or backslash. The answer is the normalised path and query, never the raw
 * input, so what was checked is what the browser follows.
 */
export function safeReturnTo(raw: unknown, authUrl: string, fallback = "/account"): string {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > 8000) return fallback;
  if (!raw.startsWith("/") || /[\\\x00-\x1f\x7f]/.test(raw)) return fallback;
  let url: URL;
  let base: URL;
  try {
    base = new URL(authUrl);
    url = new URL(raw, base);
  } catch {
    return fallback;
  }
  if (url.origin !== base.origin || url.username !== "" || url.password !== "") return fallback;
  const path = url.pathname;
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\") || /%2f|%5c/i.test(path))
    return fallback;
  return path + url.search;
}
