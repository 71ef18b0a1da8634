// CONTRACT §14 "Audit log", docs/operations.md#audit-log: the events beyond sign-ins and account
// changes — consents given and withdrawn, tokens revoked by their app, and the operator's disabling,
// enabling, admin flag and key rotation — are each recorded once, with the right actor, and with no
// token or secret. Records are written off the requests' path, so tests wait for them. On both stores.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { sigil as runSigil, type CliResult } from "./support/cli.js";
import { creds, offlinePair, people, postForm } from "./support/grants.js";
import { PageClient, csrfOf, type TestApp } from "./support/pages.js";
import { TEST_SECRET, type TestNode } from "./support/nodes.js";
import { sleep, waitFor } from "./support/wait.js";

interface Line {
  type: string;
  user_id?: string;
  username?: string;
  actor?: { kind: string; id?: string };
  client_id?: string;
  method?: string;
  address?: string;
  request_id?: string;
}

describeBackends("The audit log's other events", function (this: Mocha.Suite, backend) {
  this.timeout(60_000);
  let node: TestNode;

  const env = () => ({ SECRET: TEST_SECRET, NODE_ENV: "test", ...backend.env() });
  const sigil = (...args: string[]) => runSigil(env(), ...args);
  const lines = (r: CliResult): Line[] =>
    r.out
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Line);

  /** `sigil audit --type T…` once it prints `n` lines; then a moment more, to catch extra ones. */
  async function records(n: number, ...types: string[]): Promise<{ got: Line[]; raw: string }> {
    const args = types.flatMap((t) => ["--type", t]);
    let last: CliResult | undefined;
    await waitFor(
      `${n} audit records of ${types.join(", ")}`,
      async () => {
        last = await sigil("audit", ...args);
        expect(last.code, last.err).to.equal(0);
        return lines(last).length >= n ? true : undefined;
      },
      { seen: () => `it printed: ${last?.out.slice(0, 2000)}` },
    );
    await sleep(300);
    last = await sigil("audit", ...args);
    return { got: lines(last), raw: last.out };
  }

  beforeEach(async () => {
    node = await backend.startNode();
  });

  it("When the operator disables, enables, makes admin and rotates keys (some twice), then each change is one record by the operator", async () => {
    await new PageClient(node.url).signUp("olga");
    for (const args of [
      ["users", "disable", "--username", "olga"],
      ["users", "disable", "--username", "olga"],
      ["users", "enable", "--username", "olga"],
      ["users", "enable", "--username", "olga"],
      ["users", "set-admin", "--username", "olga", "--on"],
      ["users", "set-admin", "--username", "olga", "--on"],
      ["users", "set-admin", "--username", "olga", "--off"],
      ["keys", "rotate"],
    ]) {
      const r = await sigil(...args);
      expect(r.code, `${args.join(" ")}: ${r.err}`).to.equal(0);
    }
    const types = ["user.disabled", "user.enabled", "user.admin_granted", "user.admin_revoked", "key.rotated"];
    const { got } = await records(5, ...types);
    const id = lines(await sigil("audit", "--type", "signup"))[0]!.user_id;
    expect(id).to.be.a("string");
    expect(got.map((l) => [l.type, l.user_id ?? null, l.username ?? null, l.actor])).to.deep.equal([
      ["user.disabled", id, "olga", { kind: "operator" }],
      ["user.enabled", id, "olga", { kind: "operator" }],
      ["user.admin_granted", id, "olga", { kind: "operator" }],
      ["user.admin_revoked", id, "olga", { kind: "operator" }],
      ["key.rotated", null, null, { kind: "operator" }],
    ]);
  });

  it("When the same user is disabled 50 times at once and made admin 50 times at once, then each change is one record", async () => {
    await new PageClient(node.url).signUp("pia");
    const user = (await node.opened.store.accounts.byUsername("pia"))!;
    const { accountLife, accounts } = node.server.services;
    await Promise.all(Array.from({ length: 50 }, () => accountLife.disable(user, "operator")));
    await Promise.all(Array.from({ length: 50 }, () => accounts.setAdmin(user.id, true)));
    const { got } = await records(2, "user.disabled", "user.admin_granted");
    expect(got.map((l) => [l.type, l.user_id])).to.deep.equal([
      ["user.disabled", user.id],
      ["user.admin_granted", user.id],
    ]);
  });

  it("When a user allows an app, the app revokes its tokens and the user withdraws the consent, then each is recorded with its actor — and no token", async () => {
    const { app, alice } = await people(node.url);
    const pair = await offlinePair(node.url, alice, app);
    const other = await offlinePair(node.url, alice, app); // consent already given: not asked again
    // The refresh token (its whole grant), again (nothing live: not recorded), an unknown token.
    for (const t of [pair.refresh, pair.refresh, "not-a-token-at-all"]) {
      const r = await postForm(node.url, "/revoke", { token: t, ...creds(app) });
      expect(r.status).to.equal(200);
    }
    const revokedAccess = await postForm(node.url, "/revoke", { token: other.access, ...creds(app) });
    expect(revokedAccess.status).to.equal(200);
    expect((await withdraw(alice, app)).status).to.equal(303);
    expect((await withdraw(alice, app)).status).to.equal(303); // nothing left to withdraw
    // A forged, overlong client id: no record, no error.
    const page = await alice.get("/account");
    const forged = await alice.post("/account/consents/withdraw", {
      _csrf: csrfOf(page.text),
      client_id: "x".repeat(10_000),
    });
    expect(forged.status).to.equal(303);

    const { got, raw } = await records(4, "consent.given", "consent.withdrawn", "token.revoked");
    const id = lines(await sigil("audit", "--type", "signup", "--username", "alice"))[0]!.user_id!;
    const user = { kind: "user", id };
    const theApp = { kind: "app", id: app.clientId };
    expect(got.map((l) => [l.type, l.user_id, l.client_id, l.actor, l.method ?? null])).to.deep.equal([
      ["consent.given", id, app.clientId, user, null],
      ["token.revoked", id, app.clientId, theApp, "refresh_token"],
      ["token.revoked", id, app.clientId, theApp, "access_token"],
      ["consent.withdrawn", id, app.clientId, user, null],
    ]);
    expect(got[2]!.request_id).to.equal(revokedAccess.headers["x-request-id"]);
    for (const l of got) expect(l.address).to.match(/127\.0\.0\.1/);
    for (const secret of [pair.access, pair.refresh, other.access, other.refresh, app.clientSecret])
      expect(raw).to.not.include(secret);
  });
});

async function withdraw(user: PageClient, a: TestApp) {
  const page = await user.get("/account");
  return user.post("/account/consents/withdraw", { _csrf: csrfOf(page.text), client_id: a.clientId });
}
