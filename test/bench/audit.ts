// What the audit log costs on the hot paths (#24 item 6): POST /token (a code trade) and a
// password sign-in (POST /signin), each on a Sigil node on Redis with the audit log as shipped,
// beside the same code on its own key prefix with the audit writer's store append replaced by a
// no-op (lib/no-audit-append.ts, loaded before src/main.ts; no setting differs). Ratios of
// throughput: 1.0 means the audit log costs nothing measurable.
import { fileURLToPath } from "node:url";
import { PageClient, authorize, basic, csrfOf, pkce, registerApp } from "../support/pages.js";
import { http } from "../support/http.js";
import type { ServerProcess } from "../support/processes.js";
import { measure, selected, type LoadOptions, type LoadRequest, type Measurement } from "./lib/load.js";
import type { BenchModule } from "./lib/module.js";
import { profileArgs, stopAll } from "./lib/processes.js";
import type { Row } from "./lib/report.js";
import { startBenchSigil } from "./lib/sockets.js";
import { REDIRECT, tokenPost } from "./signin.js";

const NO_APPEND = fileURLToPath(new URL("./lib/no-audit-append.ts", import.meta.url));
const PASSWORD = "correct horse battery";

interface Side {
  name: string;
  proc: ServerProcess;
  mintCode(): Promise<string>;
  tokenRequest(code: string): LoadRequest;
}

async function prepare(name: string, proc: ServerProcess): Promise<Side> {
  const dev = new PageClient(proc.url);
  await dev.signUp("devon-bench");
  const app = await registerApp(dev, [REDIRECT], "Bench");
  const user = new PageClient(proc.url);
  await user.signUp("alice-bench", PASSWORD, "Alice");
  const { verifier, challenge } = pkce();
  const auth = {
    client_id: app.clientId,
    redirect_uri: REDIRECT,
    response_type: "code",
    state: "s",
    code_challenge: challenge,
    code_challenge_method: "S256",
  };
  const authorization = basic(app.clientId, app.clientSecret);
  return {
    name,
    proc,
    mintCode: async () => (await authorize(user, auth)).searchParams.get("code")!,
    tokenRequest: (code) => tokenPost(authorization, code, verifier),
  };
}

/** A sign-in form ready to post: a fresh browser's cookie and the page's CSRF token. */
async function signInForm(proc: ServerProcess): Promise<LoadRequest> {
  const page = await http(proc.url, "/signin");
  const cookie = [page.headers["set-cookie"] ?? []]
    .flat()
    .map((c) => String(c).split(";")[0])
    .join("; ");
  return {
    method: "POST",
    path: "/signin",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ _csrf: csrfOf(page.text), username: "alice-bench", password: PASSWORD }).toString(),
  };
}

export const auditBench: BenchModule = {
  name: "audit",
  description: "POST /token and password sign-in with the audit log on, beside the audit store append as a no-op",
  async run(ctx) {
    const { settings } = ctx;
    const count = Number(process.env.BENCH_TOKEN_CODES ?? 2000);
    const procs: ServerProcess[] = [];
    const rows: Row[] = [];
    try {
      const env = { CODE_TTL: "600" };
      // Both sides from src/ through tsx: NO_APPEND patches src/'s store classes.
      const on = await startBenchSigil(ctx.redis.url, {
        nodeArgs: profileArgs(settings),
        name: "sigil-audit",
        env,
        built: false,
      });
      procs.push(on);
      const off = await startBenchSigil(ctx.redis.url, {
        built: false,
        nodeArgs: [...profileArgs(settings), "--import", "tsx", "--import", NO_APPEND],
        name: "sigil-no-append",
        env: { ...env, KEY_PREFIX: "noappend" },
      });
      procs.push(off);
      const sides = [await prepare("audit", on), await prepare("no-append", off)];
      const base = (s: Side): Omit<LoadOptions, "next"> => ({
        url: s.proc.url,
        pid: s.proc.pid,
        seconds: settings.seconds,
        warmupSeconds: settings.warmupSeconds,
        connections: settings.connections,
        expect: (st: number) => st === 200 || st === 303,
      });
      /** Alternated rounds, each side's best kept, of `amount` single-use requests made by `pool`. */
      const rounds = async (name: string, amount: number, pool: (s: Side) => Promise<LoadRequest[]>, note?: string) => {
        const best: Record<string, Measurement> = {};
        for (let round = 1; round <= Math.max(1, settings.rounds); round++) {
          for (const s of sides) {
            const reqs = await pool(s);
            let i = 0;
            const m = await measure({
              ...base(s),
              next: () => reqs[i++ % reqs.length]!,
              amount,
              warmupAmount: Math.floor(amount / 10),
            });
            ctx.log(`  ${name} round ${round}: ${s.name} ${m.rps.toFixed(0)} req/s`);
            if (!best[s.name] || m.rps > best[s.name]!.rps) best[s.name] = m;
          }
        }
        rows.push({
          name,
          subject: best.audit!,
          baseline: best["no-append"]!,
          labels: ["audit on", "append no-op"],
          ...(note ? { note } : {}),
        });
      };
      const tname = "audit: POST /token, code trade, Redis";
      if (selected(settings, tname))
        await rounds(tname, count, async (s) => {
          const out: LoadRequest[] = [];
          for (let i = 0; i < count + count / 10; i++) out.push(s.tokenRequest(await s.mintCode()));
          return out;
        });
      const sname = "audit: POST /signin, password, Redis";
      const signIns = Math.max(20, Math.floor(count / 10));
      if (selected(settings, sname))
        await rounds(
          sname,
          signIns,
          async (s) => {
            const out: LoadRequest[] = [];
            for (let i = 0; i < signIns + signIns / 10; i++) out.push(await signInForm(s.proc));
            return out;
          },
          "a sign-in answers 303 (to /account): the non-2xx column counts them; anything else fails the row",
        );
    } finally {
      await stopAll(ctx, procs);
    }
    return rows;
  },
};
