// Bad input on the profile picture upload (docs/http-api.md#account): real pictures of every
// accepted type, damaged at random (bytes flipped, cut short, dimensions in the header rewritten,
// chunks repeated), sent in multipart forms of random shape (fields before and after the token,
// other part names, several files). Whatever arrives, the answer is a page with a 3xx or 4xx
// status, never a 5xx; the node keeps serving; and the stored picture is either unchanged or a
// picture at most 512×512 of a type the service serves. FUZZ_RUNS scales it; FUZZ_SEED replays.
import { request } from "node:http";
import { expect } from "chai";
import fc from "fast-check";
import sharp from "sharp";
import { describeBackends } from "./support/backends.js";
import { fcOpts, fuzzRuns } from "./support/fuzz.js";
import { http } from "./support/http.js";
import { PageClient, csrfOf } from "./support/pages.js";

const RUNS = fuzzRuns(40);

/** GET with the body as bytes. */
function fetchBytes(url: URL): Promise<{ status: number; type: string | undefined; data: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { agent: false }, async (res) => {
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"], data: Buffer.concat(chunks) });
    })
      .on("error", reject)
      .end();
  });
}

/** Small real pictures of each accepted type, made once. */
async function samples(): Promise<Buffer[]> {
  const img = () =>
    sharp({ create: { width: 40, height: 24, channels: 4, background: { r: 200, g: 30, b: 90, alpha: 0.5 } } });
  return Promise.all([
    img().png().toBuffer(),
    img().jpeg().toBuffer(),
    img().gif().toBuffer(),
    img().webp().toBuffer(),
  ]);
}

type Damage =
  | { kind: "none" }
  | { kind: "flip"; at: number[]; value: number }
  | { kind: "cut"; at: number }
  | { kind: "dimensions"; width: number; height: number }
  | { kind: "repeat"; from: number; length: number; times: number };

const damageArb: fc.Arbitrary<Damage> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Damage>({ kind: "none" }) },
  fc.record({
    kind: fc.constant("flip" as const),
    at: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
    value: fc.integer({ min: 0, max: 255 }),
  }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant("dimensions" as const),
    width: fc.oneof(fc.integer({ min: 0, max: 70000 }), fc.constant(0xffffffff)),
    height: fc.oneof(fc.integer({ min: 0, max: 70000 }), fc.constant(0xffffffff)),
  }),
  fc.record({
    kind: fc.constant("repeat" as const),
    from: fc.nat(),
    length: fc.integer({ min: 1, max: 64 }),
    times: fc.integer({ min: 2, max: 50 }),
  }),
);

function damage(src: Buffer, d: Damage): Buffer {
  const b = Buffer.from(src);
  switch (d.kind) {
    case "none":
      return b;
    case "flip":
      for (const i of d.at) b[i % b.length] = d.value;
      return b;
    case "cut":
      return b.subarray(0, d.at % b.length);
    case "dimensions":
      // Where PNG keeps them (IHDR); in other formats these bytes are simply damaged.
      if (b.length >= 24) {
        b.writeUInt32BE(d.width >>> 0, 16);
        b.writeUInt32BE(d.height >>> 0, 20);
      }
      return b;
    case "repeat": {
      const from = d.from % b.length;
      const piece = b.subarray(from, from + d.length);
      return Buffer.concat([b.subarray(0, from), ...Array.from({ length: d.times }, () => piece), b.subarray(from)]);
    }
  }
}

interface Part {
  name: string;
  file?: { filename: string; type: string };
}

const partArb: fc.Arbitrary<Part> = fc.record(
  {
    name: fc.constantFrom("picture", "display_name", "_csrf", "other", "", 'pic"ture'),
    file: fc.record({
      filename: fc.constantFrom("me.png", "", "../../etc/passwd", "a\u00e9.jpg"),
      type: fc.constantFrom("image/png", "image/jpeg", "text/plain", ""),
    }),
  },
  { requiredKeys: ["name"] },
);

/** The multipart body: the token first (or not), the picture, and random other parts. */
function multipart(token: string | undefined, picture: Buffer, extra: Part[], pictureFirst: boolean) {
  const boundary = "----sigilfuzz" + Math.random().toString(16).slice(2);
  const part = (p: Part, data: Buffer) =>
    Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${p.file ? `; filename="${p.file.filename}"\r\nContent-Type: ${p.file.type}` : ""}\r\n\r\n`,
      ),
      data,
      Buffer.from("\r\n"),
    ]);
  const pic = part({ name: "picture", file: { filename: "me", type: "image/png" } }, picture);
  const parts: Buffer[] = [];
  if (pictureFirst) parts.push(pic);
  if (token !== undefined) parts.push(part({ name: "_csrf" }, Buffer.from(token)));
  if (!pictureFirst) parts.push(pic);
  for (const p of extra) parts.push(part(p, p.file ? picture.subarray(0, 100) : Buffer.from("x")));
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

describeBackends("Fuzzing the profile picture upload", (backend) => {
  it("When damaged pictures arrive in forms of any shape, then no 5xx, the node keeps serving, and what is stored is a bounded picture", async function () {
    this.timeout(Math.max(60_000, RUNS * 2_000));
    const node = await backend.startNode();
    const c = new PageClient(node.url);
    await c.signUp("fuzzpic");
    const pictures = await samples();
    let accepted = 0;
    const pictureSrc = async () =>
      /<img src="([^"]+)"/.exec((await c.get("/account")).text)![1]!.replace(/&amp;/g, "&");

    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: pictures.length - 1 }),
        damageArb,
        fc.oneof({ weight: 4, arbitrary: fc.constant("right") }, fc.constantFrom("wrong", "missing")),
        fc.oneof({ weight: 2, arbitrary: fc.constant<Part[]>([]) }, fc.array(partArb, { maxLength: 4 })),
        fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, fc.constant(true)),
        async (which, d, token, extra, pictureFirst) => {
          const before = await pictureSrc();
          const csrf = csrfOf((await c.get("/account")).text);
          const t = token === "right" ? csrf : token === "wrong" ? csrf.slice(0, -2) + "xx" : undefined;
          const m = multipart(t, damage(pictures[which]!, d), extra, pictureFirst);
          const r = await c.postRaw("/account", m.body, m.type);
          const what = `${d.kind} picture ${which}, token ${token}, ${extra.length} extra parts`;
          expect(r.status, `${what}: ${r.text.slice(0, 200)}`).to.be.within(300, 499);

          // The node still serves, and the picture shown is either the one before or a new, bounded one.
          const after = await pictureSrc();
          if (after !== before) {
            accepted++;
            expect(r.status, `${what}: the picture changed on a ${r.status}`).to.equal(303);
            const u = new URL(after);
            const res = await fetchBytes(new URL(u.pathname + u.search, node.url));
            expect(res.status).to.equal(200);
            expect(res.type).to.match(/^image\/(png|jpeg)$/);
            const meta = await sharp(res.data).metadata();
            expect(meta.width, what).to.be.at.most(512);
            expect(meta.height, what).to.be.at.most(512);
            expect(meta.exif, what).to.equal(undefined);
          }
        },
      ),
      fcOpts(RUNS),
    );
    expect((await http(node.url, "/healthz")).status).to.equal(200);
    // Some of the runs must have been pictures that were taken, or the check above never ran.
    if (RUNS >= 20) expect(accepted, "uploads taken").to.be.above(0);
  });
});
