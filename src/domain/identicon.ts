// The generated default picture: a symmetric 5x5 identicon derived from the user id. Only
// numbers and a hex colour go into the SVG, never user text.
import { createHash } from "node:crypto";

export function identiconSvg(seed: string): string {
  const h = createHash("sha256").update(seed).digest();
  const hue = h.readUInt16BE(0) % 360;
  const cells: string[] = [];
  for (let y = 0; y < 5; y++) {
    for (let x = 0; x < 3; x++) {
      if ((h.readUInt8(2 + y * 3 + x) & 1) === 0) continue;
      for (const cx of new Set([x, 4 - x])) cells.push(`<rect x="${cx + 1}" y="${y + 1}" width="1" height="1"/>`);
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 7 7" width="96" height="96"><rect width="7" height="7" fill="#f0f0f0"/><g fill="hsl(${hue},55%,50%)">${cells.join("")}</g></svg>`;
}
