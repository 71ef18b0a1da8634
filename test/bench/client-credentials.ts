// POST /token with grant_type=client_credentials (docs/http-api.md#client-credentials), Sigil on
// Redis beside panva's oidc-provider (its memory adapter, baseline-oidc.ts, with its
// clientCredentials feature on). Each side: one confidential client allowed one scope, HTTP Basic,
// every request a new token (a write on each side). The app and its scope are made with the real
// CLI, as an operator would.
import { freePort } from "../support/ports.js";
import { http } from "../support/http.js";
import { sigilEnv, startProcess, type ServerProcess } from "../support/processes.js";
import { basic } from "../support/pages.js";
import { cli, startBenchSigil } from "./lib/sockets.js";
import { selected, sideBySide, type LoadOptions, type LoadRequest } from "./lib/load.js";
import type { BenchModule } from "./lib/module.js";
import { profileArgs, stopAll } from "./lib/processes.js";
import type { Row } from "./lib/report.js";

const NAME = "POST /token (client credentials)";
const SCOPE = "jobs:run";

const ccRequest = (authorization: string): LoadRequest => ({
  method: "POST",
  path: "/token",
  headers: { "content-type": "application/x-www-form-urlencoded", authorization },
  body: `grant_type=client_credentials&scope=${encodeURIComponent(SCOPE)}`,
});

export const clientCredentialsBench: BenchModule = {
  name: "client-credentials",
  description: "POST /token grant_type=client_credentials vs oidc-provider's (memory adapter)",
  async run(ctx) {
    const { settings } = ctx;
    if (!selected(settings, NAME)) return [];
    const procs: ServerProcess[] = [];
    try {
      const sigil = await startBenchSigil(ctx.redis.url, { nodeArgs: profileArgs(settings) });
      procs.push(sigil);
      const cliEnv = sigilEnv(0, ctx.redis.url);
      cli(cliEnv, "users", "create", "--username", "cc-owner", "--password", "bench password 123");
      const app = cli(
        cliEnv,
        "apps",
        "create",
        "--owner",
        "cc-owner",
        "--name",
        "Jobs",
        "--redirect-uri",
        "https://jobs.example/cb",
      );
      cli(cliEnv, "apps", "update", "--client-id", app.client_id, "--m2m-scope", SCOPE);
      const op = await freePort();
      const oidcClient = { id: "bench-client", secret: "bench-client-secret-0123456789abcdef" };
      const oidc = await startProcess({
        name: "oidc-provider",
        entry: "test/bench/baseline-oidc.ts",
        port: op,
        env: {
          PORT: String(op),
          CLIENT_ID: oidcClient.id,
          CLIENT_SECRET: oidcClient.secret,
          REDIRECT_URI: "https://jobs.example/cb",
          CC_SCOPE: SCOPE,
          NODE_ENV: "development",
        },
      });
      procs.push(oidc);
      const sides = [
        { name: "sigil", proc: sigil, req: ccRequest(basic(app.client_id as string, app.client_secret as string)) },
        { name: "oidc-provider", proc: oidc, req: ccRequest(basic(oidcClient.id, oidcClient.secret)) },
      ];
      for (const s of sides) {
        const t = await http(s.proc.url, "/token", { method: "POST", headers: s.req.headers!, body: s.req.body! });
        if (t.status !== 200 || t.json?.scope !== SCOPE)
          throw new Error(`setup: ${s.name} /token answered ${t.status} ${t.text}`);
        ctx.log(`  ${s.name}: ${t.text.replace(/"access_token":"[^"]+"/, '"access_token":"…"')}`);
      }
      const opt = (s: (typeof sides)[number]): LoadOptions => ({
        seconds: settings.seconds,
        warmupSeconds: settings.warmupSeconds,
        connections: settings.connections,
        url: s.proc.url,
        pid: s.proc.pid,
        next: () => s.req,
        expect: (status, body) => status === 200 && body.includes('"access_token"'),
      });
      const measured = await sideBySide(ctx, NAME, opt(sides[0]!), opt(sides[1]!));
      const row: Row = { name: NAME, ...measured, goal: 2, labels: ["Sigil", "oidc-provider"] };
      return [row];
    } finally {
      await stopAll(ctx, procs);
    }
  },
};
