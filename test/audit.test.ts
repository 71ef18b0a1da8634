// CONTRACT §14 "Audit log", docs/operations.md#audit-log: sign-ups, sign-ins (and failures, with
// why), sign-outs and changes to how an account is signed in to are recorded with time, actor,
// subject, address, browser and request id — never a password — and `sigil audit` prints them as
// JSON lines, filtered by time, user and type; bad filters get a usage error. Records are written
// off the requests' path, so tests wait for them (bounded, named). On both stores.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { sigil as runSigil, sigilProcess, type CliResult } from "./support/cli.js";
import { TEST_SECRET, type TestNode } from "./support/nodes.js";
import { PageClient, csrfOf } from "./support/pages.js";
import { sleep, waitFor } from "./support/wait.js";

const PASSWORD = "correct horse battery";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0";

interface Line {
  id: string;
  time: string;
  type: string;
  user_id?: string;
  actor?: { kind: string; id?: string };
  address?: string;
  browser?: string;
  request_id?: string;
  method?: string;
  reason?: string;
}

describeBackends("The audit log (sigil audit)", function (this: Mocha.Suite, backend) {
  this.timeout(60_000);
  let node: TestNode;

  const env = (extra: Record<string, string> = {}) => ({
    SECRET: TEST_SECRET,
    NODE_ENV: "test",
    ...backend.env(),
    ...extra,
  });
  // On the embedded store the command runs in this process's CLI worker (support/cli.ts): an
  // in-process command opening the DATA_DIR of this process's node can deadlock LMDB (issue #27).
  const cli = (e: Record<string, string>, ...args: string[]) => runSigil(e, ...args);
  const sigil = (...args: string[]) => cli(env(), ...args);
  const lines = (r: CliResult): Line[] =>
    r.out
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Line);

  /** `sigil audit args…` once it prints `n` lines (records are written a moment after the request). */
  async function auditOnce(n: number, ...args: string[]): Promise<Line[]> {
    let last: CliResult | undefined;
    return waitFor(
      `${n} audit records (sigil audit ${args.join(" ")})`,
      async () => {
        last = await sigil("audit", ...args);
        expect(last.code, last.err).to.equal(0);
        const got = lines(last);
        return got.length >= n ? got : undefined;
      },
      { seen: () => `it printed: ${last?.out.slice(0, 2000)}` },
    );
  }

  async function signIn(c: PageClient, username: string, password = PASSWORD) {
    const page = await c.get("/signin", { "user-agent": FIREFOX });
    return c.post("/signin", { _csrf: csrfOf(page.text), username, password }, { "user-agent": FIREFOX });
  }

  // Each test starts its node (one with settings of its own): on the embedded store, a second node
  // of a test would get a DATA_DIR of its own, which the CLI here does not read.
  const start = async (settings: Record<string, string> = {}) => {
    node = await backend.startNode(settings);
  };

  it("When a user signs up, fails, signs in, changes their password and signs out, then each is a record with who, how, from where and the request id — and no password", async () => {
    await start();
    const alice = new PageClient(node.url);
    expect((await alice.signUp("alice")).status).to.equal(303);
    const stranger = new PageClient(node.url);
    const wrong = await signIn(stranger, "alice", "not the password at all");
    expect(wrong.status).to.equal(401);
    expect((await signIn(stranger, "nobody-here", "a password typed as a name")).status).to.equal(401);
    const right = await signIn(stranger, "alice");
    expect(right.status).to.equal(303);
    await stranger.confirm();
    const changed = await stranger.submit("/account", "/account/password", {
      new_password: "a new and longer password",
    });
    expect(changed.status, changed.text.slice(0, 300)).to.be.oneOf([200, 303]);
    const out = await stranger.submit("/account", "/signout", {});
    expect(out.status).to.equal(303);

    const got = await auditOnce(7);
    const id = got.find((l) => l.type === "signup")?.user_id;
    expect(id).to.be.a("string");
    expect(got.map((l) => [l.type, l.method ?? null, l.reason ?? null, l.user_id ?? null])).to.deep.equal([
      ["signup", null, null, id],
      ["signin.succeeded", "password", null, id], // the sign-up's own session
      ["signin.failed", "password", "wrong_password", id],
      ["signin.failed", "password", "unknown_user", null],
      ["signin.succeeded", "password", null, id],
      ["password.changed", null, null, id],
      ["signout", null, null, id],
    ]);
    const signedIn = got[4]!;
    expect(signedIn.actor).to.deep.equal({ kind: "user", id });
    expect(signedIn.address).to.match(/127\.0\.0\.1/);
    expect(signedIn.browser).to.equal("Firefox 120 · Linux");
    expect(signedIn.request_id).to.equal(right.headers["x-request-id"]);
    expect(got[2]!.request_id).to.equal(wrong.headers["x-request-id"]);
    for (const l of got) {
      expect(l.id).to.match(/^\d+-\d+$/);
      expect(Date.parse(l.time)).to.be.closeTo(Date.now(), 60_000);
    }
    const all = got.map((l) => JSON.stringify(l)).join("\n");
    for (const secret of [
      PASSWORD,
      "not the password at all",
      "a password typed as a name",
      "nobody-here",
      "a new and longer",
    ])
      expect(all).to.not.include(secret);
  });

  it("When the log is filtered by user, type and time, then only those records come; a bad filter is a usage error that prints nothing", async () => {
    await start();
    const [a, b] = [new PageClient(node.url), new PageClient(node.url)];
    await a.signUp("anna");
    await b.signUp("bert");
    await signIn(new PageClient(node.url), "bert", "wrong password here");
    await auditOnce(5);
    const since = new Date().toISOString();
    await sleep(5);
    await signIn(new PageClient(node.url), "anna");

    const anna = await auditOnce(3, "--username", "anna");
    expect(anna.map((l) => l.type)).to.deep.equal(["signup", "signin.succeeded", "signin.succeeded"]);
    const failed = await auditOnce(1, "--type", "signin.failed");
    expect(failed.map((l) => l.reason)).to.deep.equal(["wrong_password"]);
    const two = await auditOnce(3, "--type", "signin.failed", "--type", "signup");
    expect(two.map((l) => l.type)).to.deep.equal(["signup", "signup", "signin.failed"]);
    const recent = await auditOnce(1, "--since", since);
    expect(recent.map((l) => l.type)).to.deep.equal(["signin.succeeded"]);

    for (const [args, says] of [
      [["--since", "yesterday"], /--since: "yesterday" is not an ISO 8601 date/],
      [
        ["--type", "signin.everything"],
        /--type: "signin.everything" is not a type of record; the types are signin\.succeeded, /,
      ],
      [["--username", "nobody"], /there is no user "nobody"/],
      [["--since", "x".repeat(10_000)], /--since: "x{64}" is not/],
    ] as const) {
      const r = await sigil("audit", ...args);
      expect(r.code, r.err).to.equal(1);
      expect(r.out).to.equal("");
      expect(r.err).to.match(says);
    }
  });

  it("When 50 sign-ins are sent at once, then the log holds 50 of them, each once", async () => {
    await start();
    await new PageClient(node.url).signUp("carl");
    const browsers = Array.from({ length: 50 }, () => new PageClient(node.url));
    const pages = await Promise.all(browsers.map((c) => c.get("/signin")));
    const answers = await Promise.all(
      browsers.map((c, i) =>
        c.post("/signin", { _csrf: csrfOf(pages[i]!.text), username: "carl", password: PASSWORD }),
      ),
    );
    expect(answers.map((r) => r.status)).to.deep.equal(Array(50).fill(303));
    // The sign-up's own session, and the 50 (waited for whole: records are written a moment later).
    const got = await auditOnce(51, "--type", "signin.succeeded", "--username", "carl");
    await sleep(200); // and no more come
    expect(
      (await sigil("audit", "--type", "signin.succeeded", "--username", "carl")).out.trim().split("\n"),
    ).to.have.length(51);
    expect(new Set(got.map((l) => l.request_id)).size).to.equal(51);
    expect(new Set(got.map((l) => l.id)).size).to.equal(51);
  });

  it("When records are older than AUDIT_RETENTION, then sigil audit no longer prints them", async () => {
    await start({ AUDIT_RETENTION: "3" });
    const signedUp = Date.now();
    await new PageClient(node.url).signUp("dora");
    await node.server.services.audit.settled(); // written
    const written = Date.now(); // every record's time is before this
    const kept = await cli(env({ AUDIT_RETENTION: "3" }), "audit");
    expect(kept.code, kept.err).to.equal(0);
    // Kept while younger than the retention (when the command took less than its 3 s, as it does
    // on a quiet machine: it runs in this process or its CLI worker).
    if (Date.now() - signedUp < 2500) expect(kept.out).to.include("signup");
    // Past the retention of the newest record (a wait from before the sign-up would not be: on a
    // busy machine the sign-up's records came more than the 100 ms margin after it, and stayed).
    await sleep(Math.max(0, written + 3100 - Date.now()));
    const gone = await cli(env({ AUDIT_RETENTION: "3" }), "audit");
    expect(gone.code, gone.err).to.equal(0);
    expect(gone.out).to.equal("");
  });

  it("When the real program prints the log, then it is JSON lines on standard output, exit 0", async () => {
    await start();
    await new PageClient(node.url).signUp("erin");
    await auditOnce(2);
    const r = await sigilProcess(env(), "audit", "--username", "erin");
    expect(r.code, r.err).to.equal(0);
    expect(lines(r).map((l) => l.type)).to.deep.equal(["signup", "signin.succeeded"]);
  });
});
