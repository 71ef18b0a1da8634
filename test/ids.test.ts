// docs/cli.md: client ids and CUSTOM TOKEN ids never begin with "-", since people paste them into
// command lines. With plain base64url one id in 64 did: 5,000 draws would show about 78.
import { expect } from "chai";
import { createHmac } from "node:crypto";
import { Apps } from "../src/domain/apps.js";
import { CustomTokens } from "../src/domain/custom-tokens.js";
import { keyedHash, randomId, randomToken } from "../src/domain/secrets.js";
import { EmbeddedStore } from "../src/store/embedded/index.js";
import { MapEngine } from "../src/store/embedded/map-engine.js";
import { TEST_SECRET } from "./support/nodes.js";

const DRAWS = 5000;

/** The ids' shape: 22 base64url characters, the first a letter or digit; all distinct. */
function expectIds(ids: string[]): void {
  const bad = ids.filter((id) => !/^[A-Za-z0-9][A-Za-z0-9_-]{21}$/.test(id));
  expect(
    bad,
    `${bad.length} of ${ids.length} ids begin with "-" or are malformed: ${bad.slice(0, 5).join(" ")}`,
  ).to.deep.equal([]);
  expect(new Set(ids).size).to.equal(ids.length);
  // Still random in the first character: most of the 62 letters and digits turn up.
  expect(new Set(ids.map((id) => id[0])).size).to.be.above(55);
  // And in the rest: "-" and "_" turn up after the first character.
  expect(ids.some((id) => id.slice(1).includes("-"))).to.equal(true);
}

describe("Ids people paste into command lines", () => {
  let store: EmbeddedStore;
  beforeEach(() => (store = new EmbeddedStore(new MapEngine())));
  afterEach(() => store.close());

  it(`When ${DRAWS} random ids are drawn, then none begins with "-"`, () => {
    expectIds(Array.from({ length: DRAWS }, () => randomId()));
  });

  it(`When ${DRAWS} apps are registered, then no client id begins with "-"`, async function () {
    this.timeout(60_000);
    const apps = new Apps({ store, secret: TEST_SECRET, gracePeriod: 60 });
    const ids: string[] = [];
    for (let i = 0; i < DRAWS; i++)
      ids.push((await apps.create("owner", `App ${i}`, ["https://app.example/cb"])).app.clientId);
    expectIds(ids);
  });

  it(`When ${DRAWS} CUSTOM TOKENs are issued, then no token id begins with "-"`, async function () {
    this.timeout(60_000);
    const tokens = new CustomTokens({ store, secret: TEST_SECRET, appExists: async () => true });
    const ids: string[] = [];
    for (let i = 0; i < DRAWS; i++) ids.push((await tokens.create({ app: "test-app" })).id);
    expectIds(ids);
  });
});

describe("Tokens drawn from the random pool", () => {
  it("When 20,000 tokens of mixed sizes are drawn (the pool refilled many times over), then each has its length, all are distinct, and the bytes look uniform", () => {
    const sizes = [32, 16, 24, 32, 7];
    const tokens = Array.from({ length: 20_000 }, (_, i) => randomToken(sizes[i % sizes.length]));
    tokens.forEach((t, i) => expect(Buffer.from(t, "base64url").length).to.equal(sizes[i % sizes.length]));
    expect(new Set(tokens).size).to.equal(tokens.length);
    // Every byte value turns up, about as often as the others (a pool handed out twice, or never
    // filled, would not: zeros, or repeats).
    const counts = new Array<number>(256).fill(0);
    for (const t of tokens) for (const b of Buffer.from(t, "base64url")) counts[b]!++;
    const mean = counts.reduce((a, b) => a + b, 0) / 256;
    expect(Math.min(...counts)).to.be.above(mean * 0.8);
    expect(Math.max(...counts)).to.be.below(mean * 1.2);
  });
  it("When a token larger than the pool's share is asked, then it is still random and of its length", () => {
    const big = [randomToken(300), randomToken(300)];
    expect(Buffer.from(big[0]!, "base64url").length).to.equal(300);
    expect(big[0]).to.not.equal(big[1]);
  });
});

describe("Keyed hashes", () => {
  it("When a secret's key is kept between hashes, then every hash is still HMAC-SHA256 under the secret as text (hashes stored by earlier versions still match)", () => {
    const secrets = ["", "0123456789abcdef0123456789abcdef", "pässwörd ☃ 😀", "x".repeat(200)];
    for (let round = 0; round < 2; round++)
      for (const secret of secrets)
        for (const parts of [["challenge-answer", "k", "a"], [], ["", ""], ["é\u0301", "\0"]])
          expect(keyedHash(secret, ...parts), `${JSON.stringify(secret)} ${JSON.stringify(parts)}`).to.equal(
            createHmac("sha256", secret).update(parts.join("\0")).digest("hex"),
          );
    // Two secrets never share a key (more secrets than the keys kept, asked in turn).
    const many = Array.from({ length: 40 }, (_, i) => `secret-${i}`);
    for (const secret of [...many, ...many])
      expect(keyedHash(secret, "p")).to.equal(createHmac("sha256", secret).update("p").digest("hex"));
  });
});
