// Recording what one client realtime connection reports, with waits on it (client tests).
import type { ChallengeResultEvent, ReadyEvent, RealtimeConnection, SigilError } from "../../client/src/index.js";
import { waitFor } from "./wait.js";

/** Everything one connection reported, and waits on it. */
export function record(conn: RealtimeConnection) {
  const r = {
    events: [] as ChallengeResultEvent[],
    readies: [] as ReadyEvent[],
    errors: [] as SigilError[],
    disconnects: [] as string[],
    /** Waits (at most ms) until check gives a value; on timeout the error says what this connection saw. */
    until<T>(check: () => T | undefined | false, what: string, ms = 5000): Promise<T> {
      return waitFor(what, check, { ms, everyMs: 10, seen: () => r.seen() });
    },
    seen(): string {
      const events = r.events.map((e) => `${e.key.slice(0, 8)}:${e.correct ? "right" : "wrong"}`);
      const errors = r.errors.map((e) => e.code);
      return (
        `${r.events.length} event(s) arrived [${events.join(", ")}], ${r.readies.length} ready, ` +
        `errors [${errors.join(", ")}], disconnects [${r.disconnects.join(", ")}]`
      );
    },
    readyCount: (n: number) => r.until(() => r.readies.length >= n && r.readies[n - 1], `ready #${n}`),
    eventCount: (n: number) => r.until(() => r.events.length >= n && r.events, `${n} event(s)`),
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
