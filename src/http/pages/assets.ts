// GET {auth_url}/assets/sigil.<hash>.css — the pages' stylesheet (assets/sigil.css); the icon and
// the passkeys script are answered under /assets too (icon.ts, passkeys.ts). Its address
// carries a hash of its content, so browsers keep it for a year and a new version is a new address;
// an ETag answers revalidations with 304. Any other name under /assets is a 404.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Request, Response } from "express";
import { notFound } from "../../errors.js";
import { serveIconSvg } from "./icon.js";
import { servePasskeyScript } from "./passkeys.js";

/** assets/, from src/http/pages (tsx) or dist/http/pages (built): both are three levels down. */
const CSS = readFileSync(new URL("../../../assets/sigil.css", import.meta.url));
const HASH = createHash("sha256").update(CSS).digest("base64url").slice(0, 16);

/** The stylesheet's address, for every page's <link rel="stylesheet">. */
export const STYLESHEET_PATH = `/assets/sigil.${HASH}.css`;
const ETAG = `"${HASH}"`;

export function getAsset(req: Request, res: Response): void {
  if (servePasskeyScript(req, res) || serveIconSvg(req, res)) return;
  if (req.path !== STYLESHEET_PATH) throw notFound();
  res.set({
    "Content-Type": "text/css; charset=utf-8",
    "Cache-Control": "public, max-age=31536000, immutable",
    ETag: ETAG,
    "X-Content-Type-Options": "nosniff",
    "Cross-Origin-Resource-Policy": "same-origin",
  });
  const match = req.headers["if-none-match"];
  if (match && match.split(",").some((m) => m.trim().replace(/^W\//, "") === ETAG)) {
    res.status(304).end();
    return;
  }
  res.status(200).send(CSS);
}
