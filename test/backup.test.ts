// docs/operations.md#backup-and-restore, docs/cli.md#sigil-backup: `sigil backup` and `sigil
// restore` through the real CLI and real nodes. A backup of Redis restores into the embedded store
// (LMDB) and that one's backup into another Redis; after each, on a node of the new store, people
// sign in as before (password, passkey, two-factor), the app trades codes with its old secret,
// its refresh token rotates and a rotated one is still caught, ID tokens verify with the same
// key, and the app's CUSTOM TOKEN resumes its event history and its channels' (exactly the
// messages after `since`, then live ones). Then what restore refuses.
import { expect } from "chai";
import { CURRENT_DATA_VERSION } from "../src/store/migrations.js";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { sigil, sigilProcess } from "./support/cli.js";
import { challengeApi } from "./support/http.js";
import { call, publishWith, readyClient } from "./support/channel.js";
import { offlinePair, refresh, type Pair } from "./support/grants.js";
import { startNode, TEST_SECRET, type TestNode } from "./support/nodes.js";
import { jwksOf } from "./support/oidc.js";
import { authorize, csrfOf, PageClient, pkce, registerApp, token, userInfo, type TestApp } from "./support/pages.js";
import { PASSKEY_ENV, addSoftPasskey, passkeySignIn } from "./support/passkeys.js";
import { requireRedis, TestRedis } from "./support/redis.js";
import { TestCluster } from "./support/cluster.js";
import { SoftAuthenticator } from "./support/soft-authenticator.js";
import { codeAt, enroll } from "./support/two-factor.js";

const PASSWORD = "correct horse battery";
const NODE_ENV = { ...PASSKEY_ENV, TRUST_PROXY: "true" };

/** What was made on the first store, and what the checks on each later one need. */
interface World {
  app: TestApp;
  /** alice's grant: its live pair, and the refresh tokens rotated away before. */
  pair: Pair;
  rotated: string[];
  kid: string;
  /** An ID token from the first store, and the issuer it names. */
  idToken: string;
  issuer: string;
  custom: string;
  /** The app's history: its events' ids, oldest first. */
  eventIds: string[];
  /** A CUSTOM TOKEN that publishes, and the ids of the app's channel `news`, oldest first. */
  publisher: string;
  newsIds: string[];
  authenticator: SoftAuthenticator;
  twoFactorSecret: string;
  /** The app's challenge, still open. */
  challengeKey: string;
}

async function signedInWithPassword(base: string, username: string): Promise<PageClient> {
  const c = new PageClient(base);
  const r = await c.submit("/signin", "/signin", { username, password: PASSWORD });
  expect(r.status, r.text.slice(0, 200)).to.equal(303);
  expect(r.headers.location, `${username}'s password sign-in`).to.equal("/account");
  return c;
}

async function makeWorld(node: TestNode): Promise<World> {
  const dev = new PageClient(node.url);
  await dev.signUp("devon", PASSWORD);
  const app = await registerApp(dev, ["https://app.example/cb"]);
  const alice = new PageClient(node.url);
  await alice.signUp("alice", PASSWORD, "Alice");
  const first = await offlinePair(node.url, alice, app);
  const r = await refresh(node.url, app, first.refresh);
  expect(r.status, r.text).to.equal(200);
  const pair = { access: r.json.access_token, refresh: r.json.refresh_token, json: r.json };
  const idToken = first.json.id_token as string;

  const tessa = new PageClient(node.url);
  await tessa.signUp("tessa", PASSWORD);
  const authenticator = new SoftAuthenticator(node.config.authUrl);
  await addSoftPasskey(tessa, authenticator);
  const bob = new PageClient(node.url);
  await bob.signUp("bob", PASSWORD);
  const { secret } = await enroll(bob);

  const made = await node.server.customTokens.create({ app: app.clientId, name: "feed" });
  const api = challengeApi(node.url);
  const key = await api.createKey("q", "a", { authorization: `Bearer ${made.token}` });
  const watcher = await readyClient(node.url, { token: made.token });
  for (const a of ["no", "a", "nope"]) await api.solve(key, a);
  const events = await watcher.waitEvents(3);
  watcher.close();
  const publisher = (await node.server.customTokens.create({ app: app.clientId, name: "pub", publish: true })).token;
  const news = Array.from({ length: 5 }, (_, n) => ({ channel: "news", data: { n, text: "é ☃" } }));
  const published = await publishWith(node.url, publisher, [...news, { channel: "user:x", data: null }]);
  expect(published.status, published.text).to.equal(200);
  return {
    app,
    pair,
    rotated: [first.refresh],
    kid: decodeProtectedHeader(idToken).kid!,
    idToken,
    issuer: decodeJwt(idToken).iss!,
    custom: made.token,
    eventIds: events.map((e) => e.id),
    publisher,
    newsIds: (published.json.ids as string[]).slice(0, 5),
    authenticator,
    twoFactorSecret: secret,
    challengeKey: key,
  };
}

/** On a node of the restored store: everything of the World still works; the grant rotates once more. */
async function checkWorld(node: TestNode, w: World): Promise<void> {
  await signedInWithPassword(node.url, "alice");
  // The passkey: the same credential, at this node's origin (its port differs).
  const authenticator = Object.assign(Object.create(Object.getPrototypeOf(w.authenticator)), w.authenticator, {
    origin: node.config.authUrl,
  }) as SoftAuthenticator;
  const pk = await passkeySignIn(node.url, authenticator, "198.51.100.7");
  expect(pk.status, `tessa's passkey sign-in: ${pk.text.slice(0, 200)}`).to.equal(200);
  // Two-factor: the code step, and bob's app's code is accepted.
  const bob = new PageClient(node.url);
  const pw = await bob.submit("/signin", "/signin", { username: "bob", password: PASSWORD });
  expect(pw.headers.location).to.match(/^\/signin\/code/);
  const step = pw.headers.location as string;
  const form = await bob.get(step);
  const code = await bob.post(step, { _csrf: csrfOf(form.text), code: codeAt(w.twoFactorSecret, 30) });
  expect(code.status, code.text.slice(0, 200)).to.equal(303);
  expect(code.headers.location).to.equal("/account");

  // The access token issued before, on /auth/user.
  const me = await userInfo(node.url, w.pair.access, w.app.clientId);
  expect(me.status, me.text).to.equal(200);
  expect(me.json.username ?? me.json.preferred_username ?? JSON.stringify(me.json)).to.contain("alice");
  // The refresh token rotates, with the app's old secret.
  const r = await refresh(node.url, w.app, w.pair.refresh);
  expect(r.status, `refresh: ${r.text}`).to.equal(200);
  w.rotated.push(w.pair.refresh);
  w.pair = { access: r.json.access_token, refresh: r.json.refresh_token, json: r.json };

  // A new code, traded with the old secret; its ID token signed by the same key.
  const alice = await signedInWithPassword(node.url, "alice");
  const p = pkce();
  const landed = await authorize(alice, {
    client_id: w.app.clientId,
    redirect_uri: w.app.redirectUri,
    response_type: "code",
    scope: "openid profile",
    code_challenge: p.challenge,
    code_challenge_method: "S256",
  });
  const traded = await token(node.url, {
    grant_type: "authorization_code",
    code: landed.searchParams.get("code")!,
    redirect_uri: w.app.redirectUri,
    code_verifier: p.verifier,
    client_id: w.app.clientId,
    client_secret: w.app.clientSecret,
  });
  expect(traded.status, traded.text).to.equal(200);
  expect(decodeProtectedHeader(traded.json.id_token).kid).to.equal(w.kid);
  // The first store's ID token verifies with this node's JWKS.
  const { keys } = await jwksOf(node.url);
  await jwtVerify(w.idToken, keys, { issuer: w.issuer, audience: w.app.clientId });

  // The CUSTOM TOKEN opens the channel, and resumes after the first event: the two after it, not
  // recovered (an id issued before the restore: the old store may have had more after the backup).
  const back = await readyClient(node.url, { token: w.custom, since: w.eventIds[0]! });
  expect(back.readies[0]).to.deep.include({ recovered: false });
  const resumed = await back.waitEvents(2);
  expect(resumed.map((e) => e.id)).to.deep.equal(w.eventIds.slice(1));
  // A channel subscriber resumes after the second message: exactly those after it, in order (not
  // recovered, as above), then a live one published now (the marker: nothing else came before it).
  const sub = await readyClient(node.url, { token: w.custom });
  expect(await call(sub, "subscribe", { channel: "news", since: w.newsIds[1]! })).to.deep.equal({ recovered: false });
  const replayed = await sub.waitMessages(w.newsIds.length - 2);
  const marker = await publishWith(node.url, w.publisher, { channel: "news", data: "marker" });
  expect(marker.status, marker.text).to.equal(200);
  const [markerId] = marker.json.ids as string[];
  const got = await sub.waitMessages(w.newsIds.length - 1);
  expect(got.map((m) => m.id)).to.deep.equal([...w.newsIds.slice(2), markerId]);
  expect(replayed.slice(0, 3).map((m) => m.data)).to.deep.equal([2, 3, 4].map((n) => ({ n, text: "é ☃" })));
  w.newsIds.push(markerId!);
  sub.close();
  back.close();
  // The app's challenge is still open, with its question.
  const q = await challengeApi(node.url).question(w.challengeKey);
  expect(q.status, q.text).to.equal(200);
  expect(q.text).to.equal("q");
}

describe("sigil backup and restore", function () {
  this.timeout(120_000);
  let redisA: TestRedis;
  let redisB: TestRedis;
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), "sigil-backup-"));
    dirs.push(d);
    return d;
  };
  const nodes: TestNode[] = [];
  const node = async (env: Record<string, string>, redisUrl?: string) => {
    const n = await startNode({ env: { ...NODE_ENV, ...env }, ...(redisUrl ? { redisUrl } : {}) });
    nodes.push(n);
    return n;
  };
  const stopNodes = () => Promise.all(nodes.splice(0).map((n) => n.close()));

  before(async function () {
    requireRedis(this);
    [redisA, redisB] = await Promise.all([TestRedis.start(), TestRedis.start()]);
  });
  afterEach(stopNodes);
  after(async () => {
    await stopNodes();
    await Promise.all([redisA?.destroy(), redisB?.destroy()]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("When Redis is backed up, restored into the embedded store, and that backed up and restored into another Redis, then sign-in, apps' secrets, refresh tokens, signing keys, CUSTOM TOKENs, event history and channel histories all carry over", async () => {
    const onRedis = { REDIS_URL: redisA.url, SECRET: TEST_SECRET };
    const first = await node({}, redisA.url);
    const world = await makeWorld(first);

    const dir = tmp();
    const file1 = join(dir, "redis.sigil-backup");
    // While the node serves (a backup does not stop anything).
    const b1 = await sigilProcess(onRedis, "backup", "--out", file1);
    expect(b1.code, b1.err).to.equal(0);
    expect(b1.json).to.deep.include({ file: file1, store: "redis", data_version: CURRENT_DATA_VERSION });
    expect(b1.json.kinds).to.deep.include({
      user: 4,
      app: 1,
      passkey: 1,
      "two-factor": 1,
      "custom-token": 2,
      "channel-history": 2,
    });
    expect(statSync(file1).mode & 0o777).to.equal(0o600);
    // What the file holds: compressed JSON lines, no token or password in the clear.
    const text = gunzipSync(readFileSync(file1)).toString();
    expect(JSON.parse(text.split("\n")[0]!)).to.include({ format: "sigil-backup", store: "redis" });
    for (const secret of [world.pair.refresh, world.pair.access, world.app.clientSecret, PASSWORD, world.custom])
      expect(text).to.not.contain(secret);
    await stopNodes();

    const data = tmp();
    const onEmbedded = { DATA_DIR: data, SECRET: TEST_SECRET };
    const r1 = await sigilProcess(onEmbedded, "restore", "--in", file1);
    expect(r1.code, r1.err).to.equal(0);
    expect(r1.json).to.deep.include({ from: "redis", store: "embedded", dropped: 0 });
    const second = await node({ DATA_DIR: data });
    await checkWorld(second, world);

    const file2 = join(dir, "embedded.sigil-backup");
    const b2 = await sigil(onEmbedded, "backup", "--out", file2);
    expect(b2.code, b2.err).to.equal(0);
    await stopNodes();
    const r2 = await sigil({ REDIS_URL: redisB.url, SECRET: TEST_SECRET }, "restore", "--in", file2);
    expect(r2.code, r2.err).to.equal(0);
    expect(r2.json).to.deep.include({ from: "embedded", store: "redis", dropped: 0 });
    const third = await node({}, redisB.url);
    await checkWorld(third, world);
    // Every refresh token rotated away, on any of the three stores, is still caught as reuse:
    // it ends the grant, the live token with it.
    const reused = await refresh(third.url, world.app, world.rotated[0]!);
    expect(reused.status).to.equal(400);
    expect((await refresh(third.url, world.app, world.pair.refresh)).status).to.equal(400);
  });

  it("When a Redis Cluster is backed up while a node serves, emptied, and restored, then everything carries over (keys on every master)", async function () {
    requireRedis(this, "Redis Cluster");
    const cluster = await TestCluster.start();
    try {
      const onCluster = { REDIS_URL: cluster.url, SECRET: TEST_SECRET };
      const world = await makeWorld(await node({}, cluster.url));
      const file = join(tmp(), "cluster.sigil-backup");
      const b = await sigil(onCluster, "backup", "--out", file);
      expect(b.code, b.err).to.equal(0);
      expect(b.json.kinds).to.deep.include({ user: 4, app: 1, history: 1, "channel-history": 2, grant: 1 });
      const serving = await sigil(onCluster, "restore", "--in", file, "--force");
      expect(serving.err).to.match(/1 Sigil node is serving this store/);
      await stopNodes();
      cluster.flushAll();
      const r = await sigil(onCluster, "restore", "--in", file);
      expect(r.code, r.err).to.equal(0);
      expect(r.json.dropped).to.equal(0);
      await checkWorld(await node({}, cluster.url), world);
    } finally {
      await stopNodes();
      await cluster.destroy();
    }
  });

  for (const source of ["redis", "lmdb"] as const) {
    it(`When a backup of ${source} is taken while people go on signing up, 50 at once, then each account in the file is whole after a restore and signs in`, async () => {
      redisA.cli("FLUSHALL");
      const env: Record<string, string> = source === "redis" ? { REDIS_URL: redisA.url } : { DATA_DIR: tmp() };
      const n = await node(source === "lmdb" ? env : {}, source === "redis" ? redisA.url : undefined);
      const file = join(tmp(), "busy.sigil-backup");
      // 50 lanes, each signing people up one after another until the backup is done.
      // done: answered (so in any backup that starts after); sent: asked (so perhaps in one that ends before).
      let done = 0;
      let sent = 0;
      let stop = false;
      let fifty!: () => void;
      const started = new Promise<void>((r) => (fifty = r));
      const lanes = Array.from({ length: 50 }, async (_, lane) => {
        const c = () => new PageClient(n.url, `127.0.1.${lane + 1}`);
        for (let i = 0; !stop && i < 30; i++) {
          sent++;
          const r = await c().signUp(`busy${lane}x${i}`, PASSWORD);
          expect(r.status, r.text.slice(0, 200)).to.equal(303);
          if (++done === 50) fifty();
        }
      });
      await started;
      const atStart = done;
      // A program of its own, as an operator runs it (LMDB: one environment per process).
      const b = await sigilProcess({ ...env, SECRET: TEST_SECRET }, "backup", "--out", file);
      const atEnd = done;
      const sentAtEnd = sent;
      stop = true;
      await Promise.all(lanes);
      expect(b.code, b.err).to.equal(0);
      expect(atEnd, "sign-ups went on during the backup").to.be.above(atStart);
      await stopNodes();
      const users = gunzipSync(readFileSync(file))
        .toString()
        .split("\n")
        .filter((l) => l.startsWith('{"kind":"user"'))
        .map((l) => JSON.parse(l).user as { id: string; username: string });
      expect(users.length).to.equal(b.json.kinds.user);
      expect(users.length).to.be.within(atStart, sentAtEnd);
      const data = tmp();
      const r = await sigil({ DATA_DIR: data, SECRET: TEST_SECRET }, "restore", "--in", file);
      expect(r.code, r.err).to.equal(0);
      expect(r.json.dropped).to.equal(0);
      const after = await node({ DATA_DIR: data });
      const accounts = after.opened.store.accounts;
      for (const u of users) expect((await accounts.byUsername(u.username))?.id, u.username).to.equal(u.id);
      for (const u of users.slice(0, 5)) await signedInWithPassword(after.url, u.username);
    });
  }

  for (const target of ["redis", "lmdb"] as const) {
    it(`When one backup is restored 50 times at once into one empty ${target} store, then one restore writes it and the 49 others refuse`, async () => {
      redisA.cli("FLUSHALL");
      const n = await node({}, redisA.url);
      await new PageClient(n.url).signUp("once", PASSWORD);
      await stopNodes();
      const file = join(tmp(), "once.sigil-backup");
      expect((await sigil({ REDIS_URL: redisA.url, SECRET: TEST_SECRET }, "backup", "--out", file)).code).to.equal(0);
      const env: Record<string, string> = target === "redis" ? { REDIS_URL: redisB.url } : { DATA_DIR: tmp() };
      redisB.cli("FLUSHALL");
      const all = await Promise.all(
        Array.from({ length: 50 }, () => sigil({ ...env, SECRET: TEST_SECRET }, "restore", "--in", file)),
      );
      expect(all.filter((r) => r.code === 0)).to.have.length(1);
      for (const r of all.filter((x) => x.code !== 0))
        expect(r.err).to.match(
          /another restore or a data migration is running|the store is not empty|in use by another Sigil/,
        );
      const check = await sigil({ ...env, SECRET: TEST_SECRET }, "backup", "--out", join(tmp(), "check"));
      // The user, and the audit records of their sign-up and its sign-in, once.
      expect(check.json.kinds).to.deep.equal({ user: 1, audit: 2 });
    });
  }

  describe("What restore refuses, writing nothing", () => {
    let file: string;
    let onRedis: Record<string, string>;
    before(async () => {
      onRedis = { REDIS_URL: redisA.url, SECRET: TEST_SECRET };
      redisA.cli("FLUSHALL");
      const n = await node({}, redisA.url);
      await new PageClient(n.url).signUp("olga", PASSWORD);
      await stopNodes();
      file = join(tmp(), "one.sigil-backup");
      expect((await sigil(onRedis, "backup", "--out", file)).code).to.equal(0);
    });

    const restoreInto = async (env: Record<string, string>, f: string, ...extra: string[]) =>
      sigil({ SECRET: TEST_SECRET, ...env }, "restore", "--in", f, ...extra);

    it("When the store is not empty, then restore refuses and names what is there; with --force it replaces it", async () => {
      const data = tmp();
      const n = await node({ DATA_DIR: data });
      await new PageClient(n.url).signUp("mallory", PASSWORD);
      await stopNodes();
      const r = await restoreInto({ DATA_DIR: data }, file);
      expect(r.code).to.equal(1);
      expect(r.err).to.match(/the store is not empty \(1 users?\b.*restore --force/);
      const forced = await restoreInto({ DATA_DIR: data }, file, "--force");
      expect(forced.code, forced.err).to.equal(0);
      const after = await node({ DATA_DIR: data });
      await signedInWithPassword(after.url, "olga");
      const gone = await new PageClient(after.url).submit("/signin", "/signin", {
        username: "mallory",
        password: PASSWORD,
      });
      expect(gone.status).to.equal(401);
    });

    it("When a server runs on the DATA_DIR, or a node on the Redis, then restore refuses until it stops", async () => {
      const data = tmp();
      await node({ DATA_DIR: data });
      const r = await restoreInto({ DATA_DIR: data }, file);
      expect(r.code).to.equal(1);
      expect(r.err).to.match(/in use by another Sigil server \(pid \d+\); stop it first/);
      redisB.cli("FLUSHALL");
      await node({}, redisB.url);
      const onB = await restoreInto({ REDIS_URL: redisB.url }, file);
      expect(onB.code).to.equal(1);
      expect(onB.err).to.match(/1 Sigil node is serving this store: stop it before a restore/);
    });

    it("When the file is cut short, damaged, of a newer version, of another SECRET, or not a backup, then restore refuses with a clear reason and the store stays empty", async () => {
      const raw = gunzipSync(readFileSync(file));
      const lines = raw.toString().trimEnd().split("\n");
      const dir = tmp();
      const variant = (name: string, bytes: Buffer) => {
        const f = join(dir, name);
        writeFileSync(f, bytes);
        return f;
      };
      const gz = (ls: string[]) => gzipSync(`${ls.join("\n")}\n`);
      const header = JSON.parse(lines[0]!);
      const cases: Array<[string, RegExp]> = [
        [variant("cut", readFileSync(file).subarray(0, 200)), /damaged: unexpected end of file|cut short/],
        [variant("no-end", gz(lines.slice(0, -1))), /cut short \(it has no end line\)/],
        [
          variant("edited", gz(lines.map((l, i) => (i === 1 ? l.replace("olga", "olgb") : l)))),
          /do not match its end line/,
        ],
        [variant("flipped", Buffer.from(readFileSync(file).map((b, i) => (i === 40 ? b ^ 0xff : b)))), /damaged/],
        [
          variant("newer", gz([JSON.stringify({ ...header, data_version: 99 }), ...lines.slice(1)])),
          /newer Sigil.*data version 99.*upgrade Sigil first/,
        ],
        // A newer file format with a kind of item this Sigil does not know: refused as newer, not as damage.
        [
          variant(
            "newer-format",
            gz([JSON.stringify({ ...header, format_version: 99 }), '{"kind":"hologram","x":1}', ...lines.slice(1)]),
          ),
          /newer Sigil \(file format 99.*upgrade Sigil first/,
        ],
        [variant("not-gzip", Buffer.from("hello\n")), /damaged/],
        [variant("not-backup", gz(['{"hello":1}'])), /not a Sigil backup/],
        [join(dir, "missing"), /cannot read .*missing: ENOENT/],
      ];
      for (const [f, reason] of cases) {
        const data = tmp();
        const r = await restoreInto({ DATA_DIR: data }, f);
        expect(r.code, `${f}: ${r.out}`).to.equal(1);
        expect(r.err, f).to.match(reason);
        const st = await sigil({ DATA_DIR: data, SECRET: TEST_SECRET }, "backup", "--out", join(dir, "check"));
        expect(st.json.items, `${f}: the store stays empty`).to.equal(0);
      }
      const other = await sigil({ DATA_DIR: tmp(), SECRET: `${TEST_SECRET}-other` }, "restore", "--in", file);
      expect(other.code).to.equal(1);
      expect(other.err).to.match(/taken under another SECRET/);
    });
  });
});
