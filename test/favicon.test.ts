// The pages' icon (docs/http-api.md#pages): every page links an SVG icon under /assets, and
// /favicon.ico, which browsers ask for on their own, answers the same icon as an ICO file; both
// cacheable, and allowed by the pages' CSP (images of this origin).
import { expect } from "chai";
import sharp from "sharp";
import { describeBackends } from "./support/backends.js";
import { http } from "./support/http.js";

const iconOf = (html: string) => /<link rel="icon" href="([^"]+)" type="image\/svg\+xml"\/?>/.exec(html)?.[1];

describeBackends("The pages' icon", (backend) => {
  let base: string;
  beforeEach(async () => {
    base = (await backend.startNode()).url;
  });

  it("When a page is served, then it links the SVG icon, which is an image of this origin, cached for a year", async () => {
    for (const path of ["/signin", "/signup", "/forgot"]) {
      const page = await http(base, path);
      const href = iconOf(page.text);
      expect(href, path).to.match(/^\/assets\/favicon\.[A-Za-z0-9_-]{16}\.svg$/);
      expect(String(page.headers["content-security-policy"])).to.match(/img-src 'self'/);
    }
    const href = iconOf((await http(base, "/signin")).text)!;
    const svg = await http(base, href);
    expect(svg.status).to.equal(200);
    expect(svg.headers["content-type"]).to.equal("image/svg+xml");
    expect(svg.headers["cache-control"]).to.equal("public, max-age=31536000, immutable");
    expect(svg.headers["x-content-type-options"]).to.equal("nosniff");
    expect(String(svg.headers["content-security-policy"])).to.contain("sandbox");
    expect(svg.text)
      .to.match(/^<svg [^>]*viewBox="0 0 32 32"/)
      .and.not.match(/<script|href=/i);
    expect((await sharp(Buffer.from(svg.text)).metadata()).format).to.equal("svg");
    expect((await http(base, href, { headers: { "if-none-match": String(svg.headers.etag) } })).status).to.equal(304);
    expect((await http(base, "/assets/favicon.0000000000000000.svg")).status).to.equal(404);
  });

  it("When a browser asks for /favicon.ico, then it gets an ICO of the icon at 16, 32 and 48 px, cached for a day (not a 404)", async () => {
    const r = await fetch(`${base}/favicon.ico`);
    expect(r.status).to.equal(200);
    expect(r.headers.get("content-type")).to.equal("image/x-icon");
    expect(r.headers.get("cache-control")).to.equal("public, max-age=86400");
    const ico = Buffer.from(await r.arrayBuffer());
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4)]).to.deep.equal([0, 1, 3]);
    const sizes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const e = 6 + 16 * i;
      const [width, bytes, offset] = [ico.readUInt8(e), ico.readUInt32LE(e + 8), ico.readUInt32LE(e + 12)];
      expect(offset + bytes).to.be.at.most(ico.length);
      const png = await sharp(ico.subarray(offset, offset + bytes)).metadata();
      expect(png.format).to.equal("png");
      expect([png.width, png.height]).to.deep.equal([width, width]);
      sizes.push(width);
    }
    expect(sizes).to.deep.equal([16, 32, 48]);
    const again = await fetch(`${base}/favicon.ico`, { headers: { "if-none-match": r.headers.get("etag")! } });
    expect(again.status).to.equal(304);
    expect((await fetch(`${base}/favicon.ico`, { method: "POST" })).status).to.equal(405);
  });
});
