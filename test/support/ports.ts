import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** The kernel's range of ephemeral ports: what listen(0) and outgoing connections take. */
function ephemeralStart(): number {
  try {
    const lo = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    if (Number.isInteger(lo) && lo > 0) return lo;
  } catch {
    // not Linux: the IANA range
  }
  return 49152;
}

const LOW = 10_000;
const HIGH = ephemeralStart();

function tryPort(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/**
 * A TCP port that was free a moment ago, for a process to be started on. Picked at random below the
 * ephemeral range, so that nothing the OS hands out meanwhile can take it: the in-process test nodes
 * listen on port 0 and every outgoing connection takes an ephemeral port, and a port from that range
 * could be taken by one of them, in the other test worker, before a slow child (`npm start`
 * builds first) binds it — the child's readiness probe was then answered by someone else's node.
 */
export async function freePort(): Promise<number> {
  if (HIGH - LOW >= 1000)
    for (let i = 0; i < 50; i++) {
      const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
      if (await tryPort(port)) return port;
    }
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
