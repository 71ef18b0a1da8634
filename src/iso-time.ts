// The current time as an ISO 8601 string (what Date#toISOString gives), formatted at most once per
// millisecond. V8 formats a date through snprintf, about 7,000 instructions a call; a busy node
// asks for the same millisecond many times (every log line's time, a solve's time), and at
// 15,000 requests a second two calls per request were 3% of an anonymous solve's instructions
// (docs/benchmarks.md, "Instructions per request").
let lastMs = Number.NaN;
let lastIso = "";

/** new Date(ms).toISOString(), remembered for the last millisecond asked. A bad time throws as toISOString does. */
export function isoTime(ms: number = Date.now()): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
