// The audit log part of the store port (docs/operations.md#audit-log): one contract, every store.
// Records come newest (or oldest) first, all of them or one user's, in pages whose cursors neither
// skip nor repeat a record; a filter by type walks at most scanLimit records a page; `since`
// leaves older records out; 50 appends at once keep all 50; a user's list expires with its records.
import { expect } from "chai";
import { describeStoreContract } from "./support/backends.js";
import type { AuditEntry, AuditQuery, AuditRecord, Store } from "../src/store/port.js";

const DAY = 86_400;
const entry = (i: number, extra: Partial<AuditEntry> = {}): AuditEntry => {
  const e: AuditEntry = {
    time: Date.now(),
    type: i % 2 === 0 ? "signin.succeeded" : "signin.failed",
    user_id: i % 3 === 0 ? "u-zero" : "u-other",
    address: `192.0.2.${i}`,
    request_id: `req-${i}`,
    ...extra,
  };
  if (e.user_id === undefined) delete e.user_id;
  return e;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeStoreContract("Store contract: audit log", (backend) => {
  let store: Store;
  beforeEach(async () => {
    store = (await backend.startNode()).opened.store;
  });

  /** Every page of a query, one after the other, and the records in the order read. */
  async function all(q: Omit<AuditQuery, "cursor">): Promise<{ pages: number[]; records: AuditRecord[] }> {
    const pages: number[] = [];
    const records: AuditRecord[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 100; guard++) {
      const page = await store.audit.list({ ...q, ...(cursor !== undefined ? { cursor } : {}) });
      pages.push(page.records.length);
      records.push(...page.records);
      if (page.next === undefined) return { pages, records };
      cursor = page.next;
    }
    throw new Error("more than 100 pages");
  }

  it("When records are appended, then they come back newest first with their fields, each with an id; a user's list holds only theirs", async () => {
    await store.audit.append([entry(0), entry(1), entry(2)], DAY);
    await store.audit.append([entry(3, { actor: { kind: "operator" }, reason: "wrong_password" })], DAY);
    const page = await store.audit.list({ limit: 10 });
    expect(page.next).to.equal(undefined);
    expect(page.records.map((r) => r.request_id)).to.deep.equal(["req-3", "req-2", "req-1", "req-0"]);
    for (const r of page.records) expect(r.id).to.match(/^\d+-\d+$/);
    expect(new Set(page.records.map((r) => r.id)).size).to.equal(4);
    const { id: _id, ...stored } = page.records[0]!;
    expect(stored).to.deep.equal({
      ...entry(3, { actor: { kind: "operator" }, reason: "wrong_password" }),
      time: stored.time,
    });
    const zero = await store.audit.list({ limit: 10, userId: "u-zero" });
    expect(zero.records.map((r) => r.request_id)).to.deep.equal(["req-3", "req-0"]);
    // A user's list names the log's ids.
    expect(zero.records.map((r) => r.id)).to.deep.equal([page.records[0]!.id, page.records[3]!.id]);
    expect((await store.audit.list({ limit: 10, userId: "nobody" })).records).to.deep.equal([]);
  });

  it("When a log is read in pages, then the cursors neither skip nor repeat a record, newest or oldest first, for all and for one user", async () => {
    // Several in one millisecond, in one batch and in several.
    await store.audit.append(
      Array.from({ length: 12 }, (_, i) => entry(i)),
      DAY,
    );
    for (let i = 12; i < 17; i++) await store.audit.append([entry(i)], DAY);
    const names = (rs: AuditRecord[]) => rs.map((r) => r.request_id);
    const written = Array.from({ length: 17 }, (_, i) => `req-${i}`);
    const newest = await all({ limit: 5 });
    expect(newest.pages).to.deep.equal([5, 5, 5, 2]);
    expect(names(newest.records)).to.deep.equal([...written].reverse());
    const oldest = await all({ limit: 5, order: "oldest" });
    expect(oldest.pages).to.deep.equal([5, 5, 5, 2]);
    expect(names(oldest.records)).to.deep.equal(written);
    const theirs = written.filter((_, i) => i % 3 === 0);
    expect(names((await all({ limit: 2, userId: "u-zero" })).records)).to.deep.equal([...theirs].reverse());
    expect(names((await all({ limit: 2, userId: "u-zero", order: "oldest" })).records)).to.deep.equal(theirs);
    // A page that ends exactly at the log's end says there is no more.
    const exact = await store.audit.list({ limit: 17 });
    expect(exact.records.length).to.equal(17);
    expect(exact.next).to.equal(undefined);
  });

  it("When a query filters by type, then only those types come, and a scan limit ends a page early with a cursor to go on from", async () => {
    await store.audit.append(
      Array.from({ length: 20 }, (_, i) => entry(i, { type: i % 5 === 0 ? "password.changed" : "signin.succeeded" })),
      DAY,
    );
    const changed = await all({ limit: 10, types: ["password.changed"] });
    expect(changed.records.map((r) => r.request_id)).to.deep.equal(["req-15", "req-10", "req-5", "req-0"]);
    const walked = await all({ limit: 10, types: ["password.changed"], scanLimit: 3 });
    expect(walked.records.map((r) => r.request_id)).to.deep.equal(["req-15", "req-10", "req-5", "req-0"]);
    expect(walked.pages.length).to.be.greaterThan(4); // some pages hold nothing: the scan ended them
    expect(walked.pages.every((n) => n <= 1)).to.equal(true);
    expect((await store.audit.list({ limit: 10, types: ["nothing.such"] })).records).to.deep.equal([]);
  });

  it("When `since` is given, then older records are left out, in both orders and for one user", async () => {
    const now = Date.now();
    await store.audit.append([entry(0, { time: now - 60_000 }), entry(3, { time: now - 30_000 })], DAY);
    await sleep(5);
    const since = Date.now();
    await sleep(5);
    await store.audit.append([entry(6), entry(9)], DAY);
    const ids = (rs: AuditRecord[]) => rs.map((r) => r.request_id);
    expect(ids((await store.audit.list({ limit: 10, since })).records)).to.deep.equal(["req-9", "req-6"]);
    expect(ids((await all({ limit: 1, since, order: "oldest" })).records)).to.deep.equal(["req-6", "req-9"]);
    expect(ids((await store.audit.list({ limit: 10, since, userId: "u-zero" })).records)).to.deep.equal([
      "req-9",
      "req-6",
    ]);
  });

  it("When 50 appends are sent at once, then all 50 are kept, each once", async () => {
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.audit.append([entry(i, { user_id: "u-zero" })], DAY)));
    const every = (await all({ limit: 20 })).records;
    expect(every.length).to.equal(50);
    expect(new Set(every.map((r) => r.request_id)).size).to.equal(50);
    expect(new Set(every.map((r) => r.id)).size).to.equal(50);
    expect((await all({ limit: 20, userId: "u-zero" })).records.length).to.equal(50);
  });

  it("When an actor's or an account's records are read, then a record is in both lists; forgetting a user deletes every record naming them, from the log and from the other's list", async () => {
    const admin = { kind: "admin" as const, id: "u-admin" };
    await store.audit.append(
      [
        entry(0, { user_id: "u-bob", request_id: "bob-own" }),
        entry(1, { user_id: "u-bob", actor: admin, request_id: "admin-on-bob" }),
        entry(2, { user_id: "u-eve", actor: admin, request_id: "admin-on-eve" }),
        entry(3, { user_id: undefined, request_id: "anonymous" }),
      ],
      DAY,
    );
    const names = async (userId?: string) =>
      (await store.audit.list({ limit: 20, ...(userId ? { userId } : {}) })).records.map((r) => r.request_id);
    expect(await names("u-admin")).to.deep.equal(["admin-on-eve", "admin-on-bob"]);
    expect(await names("u-bob")).to.deep.equal(["admin-on-bob", "bob-own"]);
    expect(await store.audit.forgetUser("u-bob")).to.equal(2);
    expect(await names()).to.deep.equal(["anonymous", "admin-on-eve"]);
    expect(await names("u-bob")).to.deep.equal([]);
    expect(await names("u-admin")).to.deep.equal(["admin-on-eve"]);
    expect(await store.audit.forgetUser("u-admin")).to.equal(1);
    expect(await names()).to.deep.equal(["anonymous"]);
    expect(await names("u-eve")).to.deep.equal([]);
    expect(await store.audit.forgetUser("u-nobody")).to.equal(0);
  });

  it("When a record's retention passes, then a user's list no longer holds it", async () => {
    await store.audit.append([entry(0)], 1);
    expect((await store.audit.list({ limit: 10, userId: "u-zero" })).records.length).to.equal(1);
    await sleep(1300);
    expect((await store.audit.list({ limit: 10, userId: "u-zero" })).records).to.deep.equal([]);
  });
});
