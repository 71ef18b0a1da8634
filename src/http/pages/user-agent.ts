// A short, readable name for a browser from its User-Agent ("Firefox 120 on Linux"), for the
// sessions list on /account: bowser parses it (a well-kept parser; User-Agents are a moving target).
import Bowser from "bowser";
import type { Request } from "express";
import type { BrowserOrigin } from "../../domain/security-mails.js";

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

/**
 * Who makes a change from this request, as the security mails and the audit log name it: the
 * browser, the client address and the request id.
 */
export function changeOrigin(req: Request): BrowserOrigin {
  return { browser: browserSummary(req.get("user-agent")), address: req.ip ?? "unknown", requestId: req.id };
}
