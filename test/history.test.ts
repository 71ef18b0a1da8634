// The per-app event history of the store port (both stores): ids, order, trimming by count and by
// time, and whether a read after some id is complete.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { compareEventIds, type Store } from "../src/store/port.js";

describeBackends("Event history", (backend) => {
  let store: Store;
  const e = () => ({ key: "00000000-0000-4000-8000-000000000000", correct: true, at: new Date().toISOString() });
  const keep = { maxEvents: 1000, ttlSeconds: 86400 };
  beforeEach(async () => {
    store = (await backend.startNode()).opened.store;
  });

  it("When events are appended, then ids are <ms>-<seq>, increasing, and read back in order", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) ids.push((await store.events.append("app", e(), keep)).id);
    for (let i = 1; i < ids.length; i++) expect(compareEventIds(ids[i]!, ids[i - 1]!)).to.equal(1);
    const read = await store.events.readAfter("app", ids[9]!, 1000, keep);
    expect(read.events.map((x) => x.id)).to.deep.equal(ids.slice(10));
    expect(read.complete).to.equal(true);
    expect((await store.events.readAfter("app", ids[9]!, 5, keep)).events.map((x) => x.id)).to.deep.equal(
      ids.slice(10, 15),
    );
    // An app that never had an event: any id after 0-0 is one its history never issued.
    expect(await store.events.readAfter("other", ids[9]!, 5, keep)).to.deep.equal({
      events: [],
      complete: false,
      ahead: true,
    });
    expect(await store.events.readAfter("other", "0-0", 5, keep)).to.deep.equal({ events: [], complete: false });
  });

  it("When since is after the newest id the app ever had, then the read says ahead and is not complete", async () => {
    const last = (await store.events.append("app", e(), keep)).id;
    expect(await store.events.readAfter("app", last, 10, keep)).to.deep.equal({ events: [], complete: true });
    const [ms, seq] = last.split("-").map(Number) as [number, number];
    for (const since of [`${ms}-${seq + 1}`, `${ms + 1}-0`, "9999999999999999-0"]) {
      expect(await store.events.readAfter("app", since, 10, keep), since).to.deep.equal({
        events: [],
        complete: false,
        ahead: true,
      });
    }
  });

  it("When more than HISTORY_MAX_EVENTS were appended, then at least that many stay and older reads are incomplete", async () => {
    const first = await store.events.append("app", e(), keep);
    const ids = [first.id];
    for (let i = 0; i < 1150; i++) ids.push((await store.events.append("app", e(), keep)).id);
    const all = await store.events.readAfter("app", "0-1", 5000, keep);
    expect(all.events.length).to.be.at.least(1000).and.at.most(1100);
    expect(all.complete).to.equal(false);
    expect((await store.events.readAfter("app", first.id, 10, keep)).complete).to.equal(false);
    // Right before the oldest kept event: nothing after it is missing.
    const oldestKept = all.events[0]!.id;
    const before = ids[ids.indexOf(oldestKept) - 1]!;
    expect((await store.events.readAfter("app", before, 10, keep)).complete).to.equal(true);
    expect(await store.events.readAfter("app", ids[ids.length - 1]!, 10, keep)).to.deep.equal({
      events: [],
      complete: true,
    });
  });

  it("When events are older than HISTORY_TTL, then the next append trims them", async () => {
    const short = { maxEvents: 1000, ttlSeconds: 1 };
    const old = await store.events.append("app", e(), short);
    await new Promise((r) => setTimeout(r, 1100));
    const fresh = await store.events.append("app", e(), short);
    const read = await store.events.readAfter("app", "0-1", 10, short);
    expect(read.events.map((x) => x.id)).to.deep.equal([fresh.id]);
    expect(read.complete).to.equal(false);
    expect((await store.events.readAfter("app", old.id, 10, short)).complete).to.equal(true);
    // With no new append, reading trims too: once the last event is older than the TTL as well,
    // the history is empty and a reader from before it is told so.
    await new Promise((r) => setTimeout(r, 1100));
    expect(await store.events.readAfter("app", old.id, 10, short)).to.deep.equal({ events: [], complete: false });
    expect(await store.events.readAfter("app", fresh.id, 10, short)).to.deep.equal({ events: [], complete: true });
  });

  it("When HISTORY_TTL is lowered, then the next append trims by the new TTL at once", async () => {
    const old = await store.events.append("app", e(), keep);
    await new Promise((r) => setTimeout(r, 1100));
    const short = { maxEvents: 1000, ttlSeconds: 1 };
    const fresh = await store.events.append("app", e(), short);
    expect((await store.events.readAfter("app", "0-1", 10, keep)).events.map((x) => x.id)).to.deep.equal([fresh.id]);
    expect((await store.events.readAfter("app", old.id, 10, keep)).complete).to.equal(true);
  });
});
