// docs/http-api.md#account, profile pictures: the size is read before anything is decoded (at most 8,000 px a
// side and 40 megapixels), the stored picture is re-encoded (at most 512×512, no metadata), and a
// multipart body is read only after the session and CSRF checks pass. Both stores.
import { request } from "node:http";
import { createDeflate, crc32 } from "node:zlib";
import { expect } from "chai";
import sharp from "sharp";
import { describeBackends, oneBackend } from "./support/backends.js";
import { http } from "./support/http.js";
import { PageClient, csrfOf, multipart } from "./support/pages.js";

/** A valid black 1-bit greyscale PNG of any size, deflated row by row (20000×20000 is ~50 KB, 50 MB raw). */
async function bigPng(width: number, height: number): Promise<Buffer> {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([1, 0, 0, 0, 0], 8); // bit depth 1, greyscale, deflate, no filter method, no interlace
  const row = Buffer.alloc(1 + Math.ceil(width / 8)); // filter byte 0, then black pixels
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on("data", (b: Buffer) => out.push(b));
  const done = new Promise((resolve, reject) => deflate.on("end", resolve).on("error", reject));
  for (let y = 0; y < height; y++) if (!deflate.write(row)) await new Promise((r) => deflate.once("drain", r));
  deflate.end();
  await done;
  const signature = Buffer.from("89504e470d0a1a0a", "hex");
  return Buffer.concat([
    signature,
    chunk("IHDR", ihdr),
    chunk("IDAT", Buffer.concat(out)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * Sends the request line, the headers (a Content-Length of `declared` bytes) and only `sent`, and
 * waits for the answer. It comes only if the server decided without the rest of the body; then
 * the server must also close the connection rather than read on.
 */
function partialPost(base: string, path: string, headers: Record<string, string>, declared: number, sent: Buffer) {
  return new Promise<{ status: number; location: string | undefined; text: string; closedByServer: Promise<void> }>(
    (resolve, reject) => {
      const req = request(new URL(path, base), {
        method: "POST",
        agent: false,
        headers: { ...headers, "content-length": String(declared) },
      });
      const guard = setTimeout(() => {
        req.destroy();
        reject(new Error("no answer while the body was incomplete: the server waited for the body"));
      }, 10_000);
      req.on("error", () => undefined); // the server closing while we could still write is expected
      req.on("response", (res) => {
        clearTimeout(guard);
        const chunks: Buffer[] = [];
        const closedByServer = new Promise<void>((done) => res.socket.once("close", () => done()));
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            location: res.headers.location,
            text: Buffer.concat(chunks).toString(),
            closedByServer,
          }),
        );
      });
      req.write(sent);
    },
  );
}

describeBackends(
  "Profile pictures",
  (backend) => {
    let base: string;
    beforeEach(async () => {
      base = (await backend.startNode()).url;
    });

    async function signedIn(name: string) {
      const c = new PageClient(base);
      await c.signUp(name);
      return c;
    }
    async function upload(c: PageClient, data: Buffer, type = "image/png") {
      const csrf = csrfOf((await c.get("/account")).text);
      const m = multipart({ _csrf: csrf }, { name: "picture", filename: "me", type, data });
      return c.postRaw("/account", m.body, m.type);
    }
    /** The picture the account page shows, as served (headers and bytes). */
    async function served(c: PageClient) {
      const src = /<img src="([^"]+)"/.exec((await c.get("/account")).text)![1]!.replace(/&amp;/g, "&");
      const u = new URL(src);
      const chunks: Buffer[] = [];
      const res = await new Promise<import("node:http").IncomingMessage>((resolve, reject) =>
        request(new URL(u.pathname + u.search, base), { agent: false }, resolve)
          .on("error", reject)
          .end(),
      );
      for await (const ch of res) chunks.push(ch as Buffer);
      return { src, type: res.headers["content-type"], data: Buffer.concat(chunks) };
    }

    describe("When the picture is too large in pixels", () => {
      for (const [what, w, h, status] of [
        ["20000×20000 (a valid PNG of a few KB)", 20000, 20000, 400],
        ["8001×10 (a side over 8,000 px)", 8001, 10, 400],
        ["7000×7000 (49 megapixels)", 7000, 7000, 400],
      ] as const) {
        it(`then ${what} is refused with 400 and a clear error on /account, and nothing is stored`, async function () {
          this.timeout(60_000);
          const png = await bigPng(w, h);
          expect(png.length).to.be.below(1024 * 1024);
          expect(await sharp(png, { limitInputPixels: false }).metadata()).to.include({
            format: "png",
            width: w,
            height: h,
          });
          const c = await signedIn("wide");
          const before = await served(c);
          const r = await upload(c, png);
          expect(r.status).to.equal(status);
          expect(r.text).to.contain("8,000 pixels").and.to.contain("40 megapixels");
          expect(r.text).to.contain(`${w}×${h}`);
          const after = await served(c);
          expect(after.src).to.equal(before.src);
          expect(after.type).to.match(/^image\/svg\+xml/);
        });
      }

      it("then 8000×5000 (exactly the limits) is accepted and stored at 512×320", async function () {
        this.timeout(60_000);
        const c = await signedIn("edge");
        expect((await upload(c, await bigPng(8000, 5000))).status).to.equal(303);
        const pic = await served(c);
        expect(await sharp(pic.data).metadata()).to.include({ width: 512, height: 320 });
      });
    });

    describe("When a picture is accepted", () => {
      it("then a 1000×600 picture is served at most 512×512, aspect kept, as the type it is served with", async () => {
        const c = await signedIn("big");
        const jpeg = await sharp({
          create: { width: 1000, height: 600, channels: 3, background: { r: 20, g: 120, b: 200 } },
        })
          .jpeg()
          .toBuffer();
        expect((await upload(c, jpeg, "image/jpeg")).status).to.equal(303);
        const pic = await served(c);
        const meta = await sharp(pic.data).metadata();
        expect(meta).to.include({ width: 512, height: 307 });
        expect(pic.type).to.equal(`image/${meta.format}`);
      });

      it("then a small picture is not enlarged", async () => {
        const c = await signedIn("small");
        const png = await sharp({
          create: { width: 40, height: 30, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.5 } },
        })
          .png()
          .toBuffer();
        expect((await upload(c, png)).status).to.equal(303);
        const pic = await served(c);
        expect(pic.type).to.equal("image/png");
        expect(await sharp(pic.data).metadata()).to.include({ format: "png", width: 40, height: 30, hasAlpha: true });
      });

      it("then a JPEG with EXIF and GPS is stored without any of it", async () => {
        const c = await signedIn("spy");
        const jpeg = await sharp({
          create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 10, b: 10 } },
        })
          .withExif({
            IFD0: { Make: "SpyCam" },
            IFD3: {
              GPSLatitudeRef: "N",
              GPSLatitude: "48/1 51/1 2400/100",
              GPSLongitudeRef: "E",
              GPSLongitude: "2/1 21/1 0/1",
            },
          })
          .jpeg()
          .toBuffer();
        const exif = (await sharp(jpeg).metadata()).exif!;
        expect(exif.includes(Buffer.from([0x25, 0x88])), "the input has a GPS IFD (tag 0x8825)").to.equal(true);
        expect((await upload(c, jpeg, "image/jpeg")).status).to.equal(303);
        const pic = await served(c);
        const meta = await sharp(pic.data).metadata();
        expect(meta.exif).to.equal(undefined);
        expect(meta.xmp).to.equal(undefined);
        expect(meta).to.include({ width: 64, height: 48 });
        expect(pic.data.includes("SpyCam")).to.equal(false);
        expect(pic.data.includes("Exif\0\0")).to.equal(false);
      });
    });

    describe("When the upload is not a picture", () => {
      for (const [what, data] of [
        [
          "SVG text claiming to be a PNG",
          Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>'),
        ],
        ["random bytes", Buffer.from("not an image at all, just words")],
        [
          "a PNG cut short after its header",
          Buffer.from("89504e470d0a1a0a0000000d4948445200000010000000100806000000", "hex"),
        ],
      ] as const) {
        it(`then ${what} is refused with 400 and a clear error, and nothing is stored`, async () => {
          const c = await signedIn("notpic");
          const r = await upload(c, data);
          expect(r.status).to.equal(400);
          expect(r.text).to.match(/PNG, JPEG, GIF or WebP|could not be read/);
          expect((await served(c)).type).to.match(/^image\/svg\+xml/);
        });
      }
    });

    describe("When the session or the CSRF check fails, then the body is not read", () => {
      it("then a wrong CSRF token (the form's first field) answers 403 before the file is sent, and the connection is closed", async () => {
        const c = await signedIn("csrf1");
        await c.get("/account");
        const m = multipart(
          { _csrf: "forged" },
          { name: "picture", filename: "x.png", type: "image/png", data: Buffer.alloc(0) },
          "BOUNDARY",
        );
        const head = m.body.subarray(0, m.body.indexOf("image/png") + "image/png\r\n\r\n".length);
        const r = await partialPost(
          base,
          "/account",
          { cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; "), "content-type": m.type },
          1_000_000,
          head,
        );
        expect(r.status).to.equal(403);
        await r.closedByServer;
      });

      it("then a missing CSRF token (the file comes first) answers 403 before the file is sent", async () => {
        const c = await signedIn("csrf2");
        await c.get("/account");
        // The part's headers and its first bytes: the rest of the declared megabyte never comes.
        const head = Buffer.concat([
          Buffer.from(
            `--B\r\nContent-Disposition: form-data; name="picture"; filename="x.png"\r\nContent-Type: image/png\r\n\r\n`,
          ),
          Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"),
        ]);
        const r = await partialPost(
          base,
          "/account",
          {
            cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
            "content-type": "multipart/form-data; boundary=B",
          },
          1_000_000,
          head,
        );
        expect(r.status).to.equal(403);
        await r.closedByServer;
      });

      it("then without a session the answer (to sign in) comes after the headers alone", async () => {
        const r = await partialPost(
          base,
          "/account",
          { "content-type": "multipart/form-data; boundary=B" },
          1_000_000,
          Buffer.alloc(0),
        );
        expect(r.status).to.equal(303);
        expect(r.location).to.match(/^\/signin/);
        await r.closedByServer;
      });

      it("then the right CSRF token still uploads, and a body over 1 MB is 413", async () => {
        const c = await signedIn("csrf3");
        const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#123456" } })
          .png()
          .toBuffer();
        expect((await upload(c, png)).status).to.equal(303);
        expect((await upload(c, Buffer.concat([png, Buffer.alloc(1024 * 1024)]))).status).to.equal(413);
        const r = await http(base, "/account", {
          headers: { cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; ") },
        });
        expect(r.status).to.equal(200);
      });
    });
  },
  oneBackend("lmdb"),
);
