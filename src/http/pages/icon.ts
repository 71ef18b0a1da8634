// The pages' icon (assets/favicon.svg). Every page links it as /assets/favicon.<hash>.svg (its
// address carries a hash of its content: cached for a year, like the stylesheet). Browsers also ask
// for /favicon.ico on their own (for what names no icon: JSON answers, the demo page, and older
// browsers): the same icon, drawn at 16, 32 and 48 px by sharp, as PNG images in an ICO file
// (the ICO format's PNG entries: a 6-byte header and a 16-byte entry per image), cached for a day.
// Both are images of this origin, which the pages' CSP (img-src 'self') allows.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Request, Response } from "express";
import sharp from "sharp";

/** assets/, from src/http/pages (tsx) or dist/http/pages (built): both are three levels down. */
const SVG = readFileSync(new URL("../../../assets/favicon.svg", import.meta.url));
const hashOf = (b: Buffer) => createHash("sha256").update(b).digest("base64url").slice(0, 16);
const SVG_HASH = hashOf(SVG);

/** The icon's address, for every page's <link rel="icon">. */
export const ICON_PATH = `/assets/favicon.${SVG_HASH}.svg`;

const SIZES = [16, 32, 48];

/** An ICO file holding PNG images (one per size, each size × size). */
export function icoOf(pngs: { size: number; data: Buffer }[]): Buffer {
  const header = Buffer.alloc(6 + 16 * pngs.length);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(pngs.length, 4);
  let offset = header.length;
  pngs.forEach(({ size, data }, i) => {
    const e = 6 + 16 * i;
    header.writeUInt8(size >= 256 ? 0 : size, e); // width (0 means 256)
    header.writeUInt8(size >= 256 ? 0 : size, e + 1); // height
    header.writeUInt8(0, e + 2); // no palette
    header.writeUInt8(0, e + 3); // reserved
    header.writeUInt16LE(1, e + 4); // colour planes
    header.writeUInt16LE(32, e + 6); // bits per pixel
    header.writeUInt32LE(data.length, e + 8);
    header.writeUInt32LE(offset, e + 12);
    offset += data.length;
  });
  return Buffer.concat([header, ...pngs.map((p) => p.data)]);
}

let ico: Promise<{ body: Buffer; etag: string }> | undefined;

/** The ICO, drawn once per process from the SVG. */
function favicon(): Promise<{ body: Buffer; etag: string }> {
  ico ??= Promise.all(
    SIZES.map(async (size) => ({
      size,
      data: await sharp(SVG, { density: (72 * size) / 32 })
        .resize(size, size)
        .png()
        .toBuffer(),
    })),
  ).then((pngs) => {
    const body = icoOf(pngs);
    return { body, etag: `"${hashOf(body)}"` };
  });
  return ico;
}

function send(req: Request, res: Response, body: Buffer, etag: string, headers: Record<string, string>): void {
  res.set({
    ...headers,
    ETag: etag,
    "X-Content-Type-Options": "nosniff",
    "Cross-Origin-Resource-Policy": "same-origin",
    // Opened on its own, the image is a document: it may run and load nothing.
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  });
  const match = req.headers["if-none-match"];
  if (match && match.split(",").some((m) => m.trim().replace(/^W\//, "") === etag)) res.status(304).end();
  else res.status(200).send(body);
}

/** GET /assets/favicon.<hash>.svg: true when this was that request (and it was answered). */
export function serveIconSvg(req: Request, res: Response): boolean {
  if (req.path !== ICON_PATH) return false;
  send(req, res, SVG, `"${SVG_HASH}"`, {
    "Content-Type": "image/svg+xml",
    "Cache-Control": "public, max-age=31536000, immutable",
  });
  return true;
}

/** GET /favicon.ico. */
export async function getFavicon(req: Request, res: Response): Promise<void> {
  const { body, etag } = await favicon();
  send(req, res, body, etag, { "Content-Type": "image/x-icon", "Cache-Control": "public, max-age=86400" });
}
