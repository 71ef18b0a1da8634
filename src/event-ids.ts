// Event ids of the realtime channel are `<milliseconds>-<sequence>` (docs/realtime.md#resuming-with-since,
// as Redis Streams make them) and increase within an app. The one comparison of them, used by the
// server (src/store/port.ts) and bundled into the client (client/src/event-ids.ts): pure
// ES2022, no Node, nothing but strings. Compared as whole numbers, never as text ("999-0" comes
// before "1000-0") and never through Number, which is exact only up to 2^53: each part is compared
// by its digits (fewer significant digits is smaller, then digit by digit), so any length is exact.

/** An event id as a client may send it in `since`: two parts of at most 16 digits. */
const EVENT_ID = /^(\d{1,16})-(\d{1,16})$/;
/** Any two runs of digits: what the comparison can order. */
const ORDERABLE = /^(\d+)-(\d+)$/;

export function isEventId(s: unknown): s is string {
  return typeof s === "string" && EVENT_ID.test(s);
}

/** Two runs of decimal digits as whole numbers: -1, 0 or 1. */
function compareDigits(a: string, b: string): -1 | 0 | 1 {
  const x = a.replace(/^0+/, "");
  const y = b.replace(/^0+/, "");
  if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  return x === y ? 0 : x < y ? -1 : 1;
}

/** -1 when a < b, 0 when equal, 1 when a > b; undefined when either is not `<digits>-<digits>`. */
export function orderEventIds(a: string, b: string): -1 | 0 | 1 | undefined {
  const ma = ORDERABLE.exec(a);
  const mb = ORDERABLE.exec(b);
  if (!ma || !mb) return undefined;
  // Both groups of ORDERABLE are mandatory, so a match has them.
  return compareDigits(ma[1]!, mb[1]!) || compareDigits(ma[2]!, mb[2]!);
}
