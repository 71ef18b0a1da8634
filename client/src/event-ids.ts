// Event ids of the realtime channel are `<milliseconds>-<sequence>` (docs/realtime.md#resuming-with-since, as Redis
// Streams make them) and increase within an app. Compared as numbers, never as text:
// "999-0" comes before "1000-0".

const EVENT_ID = /^(\d{1,16})-(\d{1,16})$/;

/** Negative when a < b, 0 when equal, positive when a > b; undefined when either is not an event id. */
export function compareEventIds(a: string, b: string): number | undefined {
  const ma = EVENT_ID.exec(a);
  const mb = EVENT_ID.exec(b);
  if (!ma || !mb) return undefined;
  return Number(ma[1]) - Number(mb[1]) || Number(ma[2]) - Number(mb[2]);
}

/** Whether an event with `id` is new to a client whose last seen event is `last`. */
export function isNewEvent(id: string, last: string | undefined): boolean {
  if (last === undefined) return true;
  const order = compareEventIds(id, last);
  // An id the client cannot read is passed on rather than silently dropped.
  return order === undefined || order > 0;
}
