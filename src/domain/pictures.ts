// Profile pictures (docs/http-api.md#account): the size is read from the image's header before anything is
// decoded, and what is stored is re-encoded — at most 512×512, no metadata (EXIF, GPS, XMP) —
// so every app that shows the picture gets a small, plain image. sharp (libvips) does the work.
import { fileTypeFromBuffer } from "file-type";
import type { Metadata } from "sharp";
import { message, type MessageRef } from "../errors.js";

/** Most pixels on a side, and in all, of a picture that is decoded at all. */
export const MAX_SIDE = 8000;
export const MAX_PIXELS = 40_000_000;
/** The stored picture fits in this square (never enlarged). */
export const STORED_SIDE = 512;

/** The formats taken, by content (file-type's magic numbers, then sharp's own reading agree). */
const FORMATS: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};

/**
 * sharp (and libvips), loaded at its first use; a node loads it before it listens (node.ts):
 * its import is about a quarter of a second, which every `sigil` command paid. One-off uploads gain
 * nothing from libvips' operation cache, which would hold decoded images: off.
 */
let library: Promise<typeof import("sharp")> | undefined;
export const sharpLibrary = () =>
  (library ??= import("sharp").then((m) => {
    m.default.cache(false);
    return m;
  }));

export type PreparedPicture =
  { ok: true; type: "image/png" | "image/jpeg"; data: Buffer } | { ok: false; problem: MessageRef };

/**
 * The picture to store for these uploaded bytes, or the problem to show the person.
 * Output: PNG when the input is a PNG or has transparency (lossless stays lossless, alpha is
 * kept), JPEG otherwise (photos: a fraction of PNG's size); both are shown everywhere.
 */
export async function preparePicture(bytes: Buffer): Promise<PreparedPicture> {
  const kind = await fileTypeFromBuffer(bytes);
  const format = kind ? FORMATS[kind.mime] : undefined;
  if (!format) return { ok: false, problem: message("err.pictureType") };
  const { default: sharp } = await sharpLibrary();
  let meta: Metadata;
  try {
    // Reads the header only (libvips decodes lazily), so no pixel limit is needed for this step.
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    return { ok: false, problem: message("err.pictureUnreadable") };
  }
  if (meta.format !== format) return { ok: false, problem: message("err.pictureUnreadable") };
  const width = meta.width ?? 0;
  const height = Math.max(meta.height ?? 0, meta.pageHeight ?? 0);
  if (width > MAX_SIDE || height > MAX_SIDE || width * height > MAX_PIXELS) {
    return {
      ok: false,
      problem: message("err.pictureTooLarge", { width: String(width), height: String(height) }),
    };
  }
  if (width < 1 || height < 1) return { ok: false, problem: message("err.pictureUnreadable") };
  const png = format === "png" || meta.hasAlpha === true;
  try {
    // limitInputPixels again, in case the decoder sees more than the header said; the first frame
    // only (animations become still); upright per EXIF before that is dropped with the rest.
    const pipeline = sharp(bytes, { limitInputPixels: MAX_PIXELS })
      .autoOrient()
      .resize(STORED_SIDE, STORED_SIDE, { fit: "inside", withoutEnlargement: true })
      .timeout({ seconds: 20 });
    const data = png
      ? await pipeline.png({ compressionLevel: 9 }).toBuffer()
      : await pipeline.jpeg({ quality: 85 }).toBuffer();
    return { ok: true, type: png ? "image/png" : "image/jpeg", data };
  } catch {
    return { ok: false, problem: message("err.pictureUnreadable") };
  }
}
