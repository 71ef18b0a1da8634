// A short, readable name for a browser from its User-Agent ("Firefox 120 on Linux"), for the
// sessions list on /account: bowser parses it (a well-kept parser; User-Agents are a moving target).
import Bowser from "bowser";

/** "<browser> <major version> on <OS>", the parts that are known; undefined when none is. */
export function browserSummary(userAgent: string | undefined): string | undefined {
  if (!userAgent) return undefined;
  let r: Bowser.Parser.ParsedResult;
  try {
    r = Bowser.parse(userAgent);
  } catch {
    return undefined;
  }
  const major = r.browser.version?.split(".")[0];
  const browser = r.browser.name ? `${r.browser.name}${major ? ` ${major}` : ""}` : undefined;
  const os = r.os.name || undefined;
  if (browser && os) return `${browser} · ${os}`;
  return browser ?? os;
}
