// `sigil tokens create|revoke` (CONTRACT §7) against a private Redis.
import { spawnSync } from "node:child_process";
import { expect } from "chai";
import { tokensCommands } from "../src/cli/tokens.js";
import type { CliContext } from "../src/cli/common.js";
import { describeBackends } from "./support/backends.js";
import { readyClient, refusal } from "./support/channel.js";
import { TEST_APPS, type TestNode } from "./support/nodes.js";

describeBackends(
  "sigil tokens",
  (backend) => {
    let node: TestNode;
    const [create, revoke] = tokensCommands(() => async (id) => TEST_APPS.has(id));
    const run = (cmd: typeof create, values: CliContext["values"]) => cmd!.run({ config: node.config, opened: node.opened, values });
    beforeEach(async () => {
      node = await backend.startNode();
    });

    it("When a token is created, then it prints {id, token} and the token opens the channel", async () => {
      const out = (await run(create, { app: "test-app", name: "ci", "expires-in": "3600" })) as { id: string; token: string };
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

    it("When the real command runs, then it is registered and answers with one clear error line", function () {
      this.timeout(20_000);
      const r = spawnSync(process.execPath, ["bin/sigil.js", "tokens", "create", "--app", "test-app"], {
        encoding: "utf8",
        env: { PATH: process.env.PATH, REDIS_URL: backend.redis!.url, SECRET: node.config.secret },
      });
      // Apps arrive with the sign-in branch; until the integrator wires them, no app exists.
      expect(r.status).to.equal(1);
      expect(r.stderr.trim()).to.equal("sigil: No app has this client_id.");
    });
  },
  ["redis"],
);
