// POST /token with grant_type=client_credentials (docs/http-api.md#client-credentials), Sigil
// beside panva's oidc-provider (its memory adapter, baseline-oidc.ts, with its clientCredentials
// feature on): Sigil on Redis (the row with the goal), then Sigil on LMDB (one node, the default
// store, as oidc-provider's in-process adapter is; no goal). Each side: one confidential client
// allowed one scope, HTTP Basic, every request a new token (a write on each side). The app and its
// scope are made with the real CLI beside the running node, as an operator would. On Redis a third
// side, the one-script floor (baseline-client-credentials.ts: raw node:http + ioredis, one round
// trip, Sigil's app and keys), is measured in turn with the other two: its rows tell how far Sigil is
// from the least a token saved on Redis costs, and whether the goal is within reach of that least.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../support/ports.js";
import { http } from "../support/http.js";
import { sigilEnv, startProcess, type ServerProcess } from "../support/processes.js";
import { basic } from "../support/pages.js";
import { cli, startBenchSigil } from "./lib/sockets.js";
import { inTurn, selected, sideBySide, type LoadOptions, type LoadRequest } from "./lib/load.js";
import type { BenchModule } from "./lib/module.js";
import { profileArgs, stopAll } from "./lib/processes.js";
import type { Row } from "./lib/report.js";

const NAMES = {
  redis: "POST /token (client credentials)",
  lmdb: "POST /token (client credentials), LMDB",
} as const;
const FLOOR = "POST /token (client credentials), one-script floor";
const SCOPE = "jobs:run";

const ccRequest = (authorization: string): LoadRequest => ({
  method: "POST",
  path: "/token",
  headers: { "content-type": "application/x-www-form-urlencoded", authorization },
  body: `grant_type=client_credentials&scope=${encodeURIComponent(SCOPE)}`,
});

/** One Sigil node with an app allowed SCOPE, made with the real CLI; its request. */
async function sigilSide(
  ctx: Parameters<BenchModule["run"]>[0],
  procs: ServerProcess[],
  dirs: string[],
  store: "redis" | "lmdb",
): Promise<{ proc: ServerProcess; req: LoadRequest; env: Record<string, string> }> {
  const dataDir = store === "lmdb" ? mkdtempSync(join(tmpdir(), "sigil-bench-cc-")) : "";
  if (dataDir) dirs.push(dataDir);
  const env: Record<string, string> = store === "lmdb" ? { REDIS_URL: "", DATA_DIR: dataDir } : {};
  const proc = await startBenchSigil(store === "redis" ? ctx.redis.url : "", {
    name: `sigil-${store}`,
    nodeArgs: profileArgs(ctx.settings),
    env,
  });
  procs.push(proc);
  // The CLI beside the running node, on the same store (DATA_DIR: LMDB lets several processes in).
  const cliEnv = { ...sigilEnv(0, store === "redis" ? ctx.redis.url : ""), ...env };
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
  return { proc, req: ccRequest(basic(app.client_id as string, app.client_secret as string)), env: cliEnv };
}

export const clientCredentialsBench: BenchModule = {
  name: "client-credentials",
  description:
    "POST /token grant_type=client_credentials vs oidc-provider's (memory adapter), Sigil on Redis and on LMDB",
  async run(ctx) {
    const { settings } = ctx;
    const stores = (["redis", "lmdb"] as const).filter((s) => selected(settings, NAMES[s]));
    if (stores.length === 0) return [];
    const procs: ServerProcess[] = [];
    const dirs: string[] = [];
    try {
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
      const peer = { name: "oidc-provider", proc: oidc, req: ccRequest(basic(oidcClient.id, oidcClient.secret)) };
      const rows: Row[] = [];
      for (const store of stores) {
        const sigil = { name: `sigil (${store})`, ...(await sigilSide(ctx, procs, dirs, store)) };
        for (const s of [sigil, peer]) {
          const t = await http(s.proc.url, "/token", { method: "POST", headers: s.req.headers!, body: s.req.body! });
          if (t.status !== 200 || t.json?.scope !== SCOPE)
            throw new Error(`setup: ${s.name} /token answered ${t.status} ${t.text}`);
          ctx.log(`  ${s.name}: ${t.text.replace(/"access_token":"[^"]+"/, '"access_token":"…"')}`);
        }
        const opt = (s: typeof peer): LoadOptions => ({
          seconds: settings.seconds,
          warmupSeconds: settings.warmupSeconds,
          connections: settings.connections,
          url: s.proc.url,
          pid: s.proc.pid,
          next: () => s.req,
          expect: (status, body) => status === 200 && body.includes('"access_token"'),
        });
        const labels: [string, string] = [`Sigil, ${store === "redis" ? "Redis" : "LMDB"}`, "oidc-provider"];
        if (store === "lmdb") {
          const measured = await sideBySide(ctx, NAMES[store], opt(sigil), opt(peer));
          rows.push({ name: NAMES[store], ...measured, labels });
        } else {
          // The floor, on the same Redis, Sigil's secret and keys: the same app, the same request.
          const fp = await freePort();
          const floorProc = await startProcess({
            name: "floor",
            entry: "test/bench/baseline-client-credentials.ts",
            port: fp,
            env: { ...sigil.env, PORT: String(fp) },
          });
          procs.push(floorProc);
          const floor = { name: "floor", proc: floorProc, req: sigil.req };
          const t = await http(floorProc.url, "/token", {
            method: "POST",
            headers: floor.req.headers!,
            body: floor.req.body!,
          });
          if (t.status !== 200 || t.json?.scope !== SCOPE)
            throw new Error(`setup: the floor's /token answered ${t.status} ${t.text}`);
          const [s, p, f] = await inTurn(ctx, NAMES[store], [
            ["Sigil", opt(sigil)],
            ["oidc-provider", opt(peer)],
            ["floor", opt(floor)],
          ]);
          rows.push({ name: NAMES[store], subject: s!, baseline: p!, goal: 2, labels });
          rows.push({
            name: `${NAMES[store]} vs the floor`,
            subject: s!,
            baseline: f!,
            labels: ["Sigil, Redis", "floor"],
          });
          rows.push({ name: FLOOR, subject: f!, baseline: p!, labels: ["floor", "oidc-provider"] });
          procs.splice(procs.indexOf(floorProc), 1);
          await stopAll(ctx, [floorProc]);
        }
        // One Sigil at a time beside the peer: the other would only take memory.
        procs.splice(procs.indexOf(sigil.proc), 1);
        await stopAll(ctx, [sigil.proc]);
      }
      return rows;
    } finally {
      await stopAll(ctx, procs);
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  },
};
