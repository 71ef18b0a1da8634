// A process that runs `sigil` commands for support/cli.ts, one at a time, each with the arguments,
// environment and input it is sent: the commands of a test process that would open a DATA_DIR a
// node of that process has open (support/open-data-dirs.ts). Each command opens and closes the
// store in this process, as the `sigil` program does; one process serves every such command of a
// mocha worker, so they cost no process start each.
import { runCli } from "../../src/cli.js";

export interface CliRequest {
  id: number;
  args: string[];
  env: Record<string, string | undefined>;
  input?: string;
}

export interface CliReply {
  id: number;
  code: number;
  out: string;
  err: string;
}

let queue = Promise.resolve();

async function run(req: CliRequest): Promise<CliReply> {
  let out = "";
  let err = "";
  const input =
    req.input === undefined
      ? undefined
      : (async function* () {
          // In two chunks, as a pipe may deliver it (as support/cli.ts's in-process sigil()).
          const bytes = Buffer.from(req.input!);
          yield bytes.subarray(0, 3);
          yield bytes.subarray(3);
        })();
  try {
    const code = await runCli(req.args, req.env, {
      out: (t) => void (out += t),
      err: (t) => void (err += t),
      ...(input ? { input } : {}),
    });
    return { id: req.id, code, out, err };
  } catch (e) {
    return { id: req.id, code: 70, out, err: `${err}the command threw: ${e instanceof Error ? e.stack : String(e)}\n` };
  }
}

process.on("message", (req: CliRequest) => {
  queue = queue.then(async () => void process.send?.(await run(req)));
});
// The test process is gone: so is this one.
process.on("disconnect", () => process.exit(0));
