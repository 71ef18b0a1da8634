// Event ids of the realtime channel (docs/realtime.md#resuming-with-since). The comparison itself
// is the server's own (src/event-ids.ts, bundled into the client's build), so the client and the
// server cannot order ids differently.
import { orderEventIds } from "../../src/event-ids.js";

/** Negative when a < b, 0 when equal, positive when a > b; undefined when either is not an event id. */
export function compareEventIds(a: string, b: string): number | undefined {
  return orderEventIds(a, b);
}

/** Whether an event with `id` is new to a client whose last seen event is `last`. */
export function isNewEvent(id: string, last: string | undefined): boolean {
  if (last === undefined) return true;
  const order = compareEventIds(id, last);
  // An id the client cannot read is passed on rather than silently dropped.
  return order === undefined || order > 0;
}
