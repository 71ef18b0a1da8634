// docs/choices.md#the-embedded-store, CONTRACT §15: without REDIS_URL the data lives in DATA_DIR and
// outlasts the process — a SIGTERM, a kill -9, a crash in the middle of writes — and one server
// process owns a DATA_DIR.
import { expect } from "chai";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddedStore } from "../src/store/embedded/index.js";
import { LmdbEngine } from "../src/store/embedded/lmdb-engine.js";
import { readyClient } from "./support/channel.js";
import { sigil } from "./support/cli.js";
import { PageClient } from "./support/pages.js";
import { ROOT, spawnNode, startProcessNode, type ServerProcess } from "./support/processes.js";

const PASSWORD = "correct horse battery";

/** Signs in on the /signin form; the answer's status (303 when right). */
async function signIn(url: string, username: string, password = PASSWORD): Promise<number> {
  const c = new PageClient(url);
  return (await c.submit("/signin", "/signin", { username, password })).status;
}

describe("Data that lasts: the embedded store in DATA_DIR", function () {
  this.timeout(240_000);
  let dir: string;
  const running: ServerProcess[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "sigil-lasts-"));
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.stop("SIGKILL")));
    rmSync(dir, { recursive: true, force: true });
  });
  const start = async (how: "npm start" | "node" = "node") => {
    const p =
      how === "npm start"
        ? await spawnNode({ command: ["npm", "start", "--silent"], env: { DATA_DIR: dir }, readyTimeoutMs: 150_000 })
        : await startProcessNode({ DATA_DIR: dir }, 30_000);
    running.push(p);
    return p;
  };

  it("When an account is made on `npm start`, the service stopped (SIGTERM) and started again, then the account signs in", async () => {
    const first = await start("npm start");
    expect((await new PageClient(first.url).signUp("keeper", PASSWORD)).status).to.equal(303);
    await first.stop("SIGTERM"); // npm's own exit reports the signal; the node drained:
    expect(first.output()).to.include('"msg":"stopped"');
    const again = await start("npm start");
    expect(await signIn(again.url, "keeper")).to.equal(303);
    expect(await signIn(again.url, "keeper", "wrong password here")).to.not.equal(303);
  });

  it("When SECRET is not set, then the server and the CLI use one kept in DATA_DIR (mode 0600, never logged): a CUSTOM TOKEN made by the CLI opens the channel, before and after a restart", async () => {
    const cli = (...args: string[]) => sigil({ NODE_ENV: "test", DATA_DIR: dir }, ...args);
    expect((await cli("users", "create", "--username", "owner", "--password", PASSWORD)).code).to.equal(0);
    const app = await cli(
      "apps",
      "create",
      "--owner",
      "owner",
      "--name",
      "Kept",
      "--redirect-uri",
      "http://127.0.0.1/cb",
    );
    expect(app.code, app.err).to.equal(0);
    const made = await cli("tokens", "create", "--app", app.json.client_id);
    expect(made.code, made.err).to.equal(0);
    const file = join(dir, "secret");
    expect(statSync(file).mode & 0o777, "the kept secret's mode").to.equal(0o600);
    const kept = readFileSync(file, "utf8").trim();

    const first = await startProcessNode({ DATA_DIR: dir, SECRET: "" }, 30_000);
    running.push(first);
    (await readyClient(first.url, { token: made.json.token })).close();
    expect(first.output()).to.include("SECRET is not set: using the one kept with the data");
    await first.stop("SIGKILL");
    const third = await startProcessNode({ DATA_DIR: dir, SECRET: "" }, 30_000);
    running.push(third);
    (await readyClient(third.url, { token: made.json.token })).close();
    expect(first.output() + third.output(), "the secret in a log line").to.not.include(kept);
  });

  it("When the service is killed (kill -9) and started again, then the account made before signs in, and the stale lock is taken over", async () => {
    const first = await start();
    expect((await new PageClient(first.url).signUp("survivor", PASSWORD)).status).to.equal(303);
    expect(await first.stop("SIGKILL")).to.equal("SIGKILL");
    const again = await start();
    expect(await signIn(again.url, "survivor")).to.equal(303);
  });

  it("When a second server starts on the same DATA_DIR, then it refuses, naming the first one's pid, and the first keeps serving", async () => {
    const first = await start();
    let refused = "";
    try {
      running.push(await startProcessNode({ DATA_DIR: dir }, 30_000));
    } catch (err) {
      refused = String(err);
    }
    expect(refused, "the second server started").to.include(`pid ${first.pid}`).and.include(dir);
    expect(await signIn(first.url, "nobody-yet")).to.not.equal(500);
    expect((await new PageClient(first.url).signUp("still-here", PASSWORD)).status).to.equal(303);
  });

  it("When a process writing 50 of each kind at once (accounts, code trades, refresh rotations, solves) is killed -9 in flight, then after a reopen every acknowledged write is there: a used code stays used, a rotated refresh token stays dead", async () => {
    const writer = spawn(process.execPath, ["--import", "tsx", "test/fixtures/crash-writer.fixture.ts", dir], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    const exited = new Promise((r) => writer.once("close", r));
    await new Promise<void>((resolve, reject) => {
      writer.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        // Well into the writes: several rounds acknowledged, the next in flight.
        if (out.split("\n").filter((l) => l.startsWith("event ")).length >= 120) resolve();
      });
      writer.once("close", (code) => reject(new Error(`the writer exited (${code}):\n${out.slice(-2000)}`)));
    });
    writer.kill("SIGKILL");
    await exited;
    const acks = out.split("\n").filter((l) => l && l !== "ready");
    const kinds = new Set(acks.map((l) => l.split(" ")[0]));
    expect([...kinds].sort()).to.deep.equal(["account", "code", "event", "rotated"]);

    const store = new EmbeddedStore(new LmdbEngine(dir));
    try {
      const history = await store.events.readAfter("crash-app", "0-0", 1_000_000, {
        maxEvents: 100_000,
        ttlSeconds: 3600,
      });
      const held = new Set(history.events.map((e) => e.id));
      for (const line of acks) {
        const [kind, a, b] = line.split(" ") as [string, string, string];
        if (kind === "account") expect(await store.accounts.byUsername(a), line).to.not.equal(null);
        if (kind === "code") expect((await store.grants.takeCode(a, 60)).kind, line).to.equal("replay");
        if (kind === "rotated") {
          expect(await store.grants.refreshToken(a, "crash-app"), line).to.deep.include({ active: false });
          expect((await store.grants.refreshToken(b, "crash-app"))?.active, line).to.equal(true);
        }
        if (kind === "event") expect(held.has(a), line).to.equal(true);
      }
      // The id sequence goes on after the last one issued before the crash.
      const next = await store.events.append(
        "crash-app",
        { key: "k", correct: true, at: new Date().toISOString() },
        {
          maxEvents: 100_000,
          ttlSeconds: 3600,
        },
      );
      const newest = history.events.at(-1)!.id; // at least 120 were acknowledged
      const [nm, ns] = next.id.split("-").map(Number);
      const [lm, ls] = newest.split("-").map(Number);
      expect(nm! > lm! || (nm === lm && ns! > ls!), `${next.id} after ${newest}`).to.equal(true);
    } finally {
      await store.close();
    }
  });
});
