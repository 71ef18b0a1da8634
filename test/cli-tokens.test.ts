// `sigil tokens create|revoke` (docs/cli.md) against a private Redis, and against the embedded
// store's DATA_DIR beside the running server (the node of this process owns it; the CLI, in this
// process or as the real program, opens it too, and what it revokes reaches the node through the
// notices table).
import { expect } from "chai";
import { tokensCommands } from "../src/cli/tokens.js";
import { createServices } from "../src/domain/services.js";
import type { CliContext } from "../src/cli/common.js";
import { describeBackends } from "./support/backends.js";
import { sigil as sigilIn, sigilProcess } from "./support/cli.js";
import { readyClient, refusal, publishWith } from "./support/channel.js";
import { PageClient, csrfOf } from "./support/pages.js";
import { withTestApps, type TestNode } from "./support/nodes.js";

describeBackends(
  "sigil tokens",
  (backend) => {
    let node: TestNode;
    const [create, revoke] = tokensCommands();
    // On the store as the node sees it, where the test apps exist (support/nodes.ts).
    const run = (cmd: typeof create, values: CliContext["values"]) =>
      cmd!.run({
        config: node.config,
        opened: node.opened,
        services: createServices(node.config, withTestApps(node.opened.store)),
        values,
      });
    beforeEach(async () => {
      node = await backend.startNode();
    });

    it("When a token is created, then it prints {id, token} and the token opens the channel", async () => {
      const out = (await run(create, { app: "test-app", name: "ci", "expires-in": "3600" })) as {
        id: string;
        token: string;
      };
      expect(Object.keys(out)).to.deep.equal(["id", "token"]);
      const c = await readyClient(node.url, { token: out.token });
      expect(c.readies[0]!.app).to.equal("test-app");
      const [listed] = await node.server.customTokens.list("test-app");
      expect(listed).to.include({ id: out.id, name: "ci", revoked: false });
    });

    it("When a token is revoked, then it prints {revoked:true} and its socket drops", async () => {
      const { id, token } = (await run(create, { app: "test-app" })) as { id: string; token: string };
      const c = await readyClient(node.url, { token });
      expect(await run(revoke, { app: "test-app", id })).to.deep.equal({ revoked: true });
      expect(await c.waitDisconnect(1000)).to.equal("io server disconnect");
      expect((await refusal(node.url, { token })).message).to.equal("invalid_token");
    });

    it("When the app or the token is unknown or an option is bad, then it fails clearly", async () => {
      const failures: Array<[typeof create, CliContext["values"], RegExp]> = [
        [create, { app: "no-such-app" }, /No app has this client_id/],
        [create, { app: "test-app", "expires-in": "soon" }, /--expires-in/],
        [create, {}, /--app is required/],
        [revoke, { app: "test-app", id: "nope" }, /no token with this id/],
        [revoke, { app: "no-such-app", id: "x" }, /No app/],
      ];
      for (const [cmd, values, msg] of failures) {
        try {
          await run(cmd, values);
          expect.fail(`succeeded with ${JSON.stringify(values)}`);
        } catch (err) {
          expect((err as Error).message).to.match(msg);
        }
      }
    });

    it("When a token is made with --publish and --channel (in process, as the CLI parses them), then it publishes to those channels only, and a bad channel name fails clearly", async () => {
      const sigil = (...args: string[]) => cli(true, args);
      const { app } = await node.server.services.apps.create("owner", "Feed", ["https://feed.example/cb"]);
      const made = await sigil(
        "tokens",
        "create",
        "--app",
        app.clientId,
        "--publish",
        "--channel",
        "news",
        "--channel",
        "user:1",
      );
      expect(made.status, made.err).to.equal(0);
      const out = JSON.parse(made.out) as { token: string; publish: boolean; channels: string[] };
      expect(out).to.include({ publish: true });
      expect(out.channels).to.deep.equal(["news", "user:1"]);
      const send = (channel: string) => publishWith(node.url, out.token, { channel, data: 1 });
      expect((await send("news")).status).to.equal(200);
      expect((await send("other")).json.error).to.equal("forbidden");
      const plain = await run(create, { app: "test-app" });
      expect(Object.keys(plain as object)).to.deep.equal(["id", "token"]);
      const bad = await sigil("tokens", "create", "--app", app.clientId, "--channel", "no spaces");
      expect(bad.status).to.equal(1);
      expect(bad.err).to.equal("sigil: channel must be 1 to 128 characters of A-Z a-z 0-9 _ : . -.");
    });

    /** The `sigil` command against this suite's store (Redis, or the node's DATA_DIR), with the node's SECRET: in this process, or the real program. */
    const cli = async (inProcess: boolean, args: string[]) => {
      const env = { ...backend.env(), SECRET: node.config.secret };
      const r = await (inProcess ? sigilIn : sigilProcess)(env, ...args);
      return { status: r.code, out: r.out.trim(), err: r.err.trim() };
    };

    it("When the real commands run, then an app made with `sigil apps create` gets a token that opens the channel", async function () {
      this.timeout(120_000);
      // The real program (node bin/sigil.js) for each command family here (users, apps, tokens) and
      // for a failure's exit status and stderr; the revocation runs in this process.
      const sigil = (...args: string[]) => cli(false, args);
      const user = await sigil("users", "create", "--username", "carol", "--password", "long enough pw");
      expect(user.status, user.err).to.equal(0);
      const app = await sigil(
        "apps",
        "create",
        "--owner",
        "carol",
        "--name",
        "Quiz",
        "--redirect-uri",
        "https://quiz.example/cb",
      );
      expect(app.status, app.err).to.equal(0);
      const { client_id } = JSON.parse(app.out) as { client_id: string };

      const made = await sigil("tokens", "create", "--app", client_id, "--name", "ops");
      expect(made.status, made.err).to.equal(0);
      const { id, token } = JSON.parse(made.out) as { id: string; token: string };
      expect(made.out).to.not.include("\n");

      const unknown = await sigil("tokens", "create", "--app", "no-such-app");
      expect(unknown.status).to.equal(1);
      expect(unknown.err).to.equal("sigil: No app has this client_id.");
      return readyClient(node.url, { token }).then(async (c) => {
        expect(c.readies[0]!.app).to.equal(client_id);
        const revoked = await cli(true, ["tokens", "revoke", "--app", client_id, "--id", id]);
        expect(revoked.status, revoked.err).to.equal(0);
        expect(JSON.parse(revoked.out)).to.deep.equal({ revoked: true });
        expect(await c.waitDisconnect(1000)).to.equal("io server disconnect");
      });
    });

    it('When an option\'s value begins with "-" (an older client id, a name, a password), then the command takes it', async function () {
      this.timeout(120_000);
      const sigil = (...args: string[]) => cli(true, args);
      const user = await sigil(
        "users",
        "create",
        "--username",
        "dash",
        "--password",
        "-secret-pass",
        "--display-name",
        "-Dash-",
      );
      expect(user.status, user.err).to.equal(0);
      const app = await sigil(
        "apps",
        "create",
        "--owner",
        "dash",
        "--name",
        "-Quiz",
        "--redirect-uri",
        "https://quiz.example/cb",
      );
      expect(app.status, app.err).to.equal(0);
      expect(JSON.parse(app.out).name).to.equal("-Quiz");
      const { client_id } = JSON.parse(app.out) as { client_id: string };

      // Ids made before ids stopped beginning with "-" (one in 64 did) keep working: such an app,
      // written to the store as it was then.
      const legacyId = `-${client_id.slice(1)}`;
      return (async () => {
        // The password was taken whole: dash signs in with it.
        const c = new PageClient(node.url);
        const page = await c.get("/signin");
        expect(
          (await c.post("/signin", { _csrf: csrfOf(page.text), username: "dash", password: "-secret-pass" })).status,
        ).to.equal(303);
        const stored = await node.opened.store.apps.get(client_id);
        await node.opened.store.apps.create({ ...stored!, clientId: legacyId });
        for (const appArgs of [["--app", legacyId], [`--app=${legacyId}`]]) {
          const made = await sigil("tokens", "create", ...appArgs, "--name", "-x");
          expect(made.status, `${appArgs.join(" ")}: ${made.err}`).to.equal(0);
          const { id, token } = JSON.parse(made.out) as { id: string; token: string };
          const [listed] = await node.server.customTokens.list(legacyId);
          expect(listed).to.include({ id, name: "-x" });
          const c = await readyClient(node.url, { token });
          expect(c.readies[0]!.app).to.equal(legacyId);
          const revoked = await sigil("tokens", "revoke", ...appArgs, "--id", id);
          expect(revoked.status, revoked.err).to.equal(0);
          expect(await c.waitDisconnect(1000)).to.equal("io server disconnect");
        }
        // An option that needs a value still says so when none follows.
        const missing = await sigil("tokens", "create", "--app");
        expect(missing.status).to.equal(1);
        expect(missing.err).to.match(/--app/);
      })();
    });
  },
  ["lmdb", "redis"],
);
