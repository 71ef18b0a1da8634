// Recording what one client realtime connection reports, with waits on it (client tests).
import type { ChallengeResultEvent, ReadyEvent, RealtimeConnection, SigilError } from "../../client/src/index.js";

/** Everything one connection reported, and waits on it. */
export function record(conn: RealtimeConnection) {
  const r = {
    events: [] as ChallengeResultEvent[],
    readies: [] as ReadyEvent[],
    errors: [] as SigilError[],
    disconnects: [] as string[],
    async until<T>(check: () => T | undefined | false, what: string, ms = 5000): Promise<T> {
      const started = Date.now();
      for (;;) {
        const v = check();
        if (v !== undefined && v !== false) return v;
        if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
        await new Promise((res) => setTimeout(res, 10));
      }
    },
    readyCount: (n: number) => r.until(() => r.readies.length >= n && r.readies[n - 1], `ready #${n}`),
    eventCount: (n: number) => r.until(() => r.events.length >= n && r.events, `${n} events (have ${r.events.length})`),
    /** The events before the first one of challenge `key`, a marker solved after what the test expects. */
    eventsBefore: (key: string) =>
      r.until(() => {
        const i = r.events.findIndex((e) => e.key === key);
        return i >= 0 && r.events.slice(0, i);
      }, `the marker event of ${key}`),
  };
  conn.on("challenge:result", (e) => r.events.push(e));
  conn.on("ready", (e) => r.readies.push(e));
  conn.on("error", (e) => r.errors.push(e));
  conn.on("disconnect", (reason) => r.disconnects.push(reason));
  return r;
}
