// The embedded store's engines (src/store/embedded/engine.ts), one contract for both: LMDB in a
// folder and the in-process Maps. What every store operation stands on: one write() is atomic and
// sees its own writes, expired records are never returned and the sweep deletes them, ranges
// come in key order.
import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine, KeyPart } from "../src/store/embedded/engine.js";
import { LmdbEngine } from "../src/store/embedded/lmdb-engine.js";
import { MapEngine } from "../src/store/embedded/map-engine.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const engines: Array<[string, () => { engine: Engine; cleanup: () => void }]> = [
  ["memory", () => ({ engine: new MapEngine(), cleanup: () => {} })],
  [
    "lmdb",
    () => {
      const dir = mkdtempSync(join(tmpdir(), "sigil-engine-"));
      return { engine: new LmdbEngine(dir), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
    },
  ],
];

for (const [name, make] of engines) {
  describe(`Store engine contract [${name}]`, () => {
    let engine: Engine;
    let cleanup: () => void;
    beforeEach(() => ({ engine, cleanup } = make()));
    afterEach(async () => {
      await engine.close();
      cleanup();
    });

    it("When 50 read-modify-write steps run at once, then none is lost, and each saw its own writes", async () => {
      const t = engine.table<number>("counters");
      const seen = await Promise.all(
        Array.from({ length: 50 }, () =>
          engine.write(() => {
            const n = (t.get("c") ?? 0) + 1;
            t.put("c", n);
            return t.get("c");
          }),
        ),
      );
      expect(t.get("c")).to.equal(50);
      expect([...seen].sort((a, b) => a! - b!)).to.deep.equal(Array.from({ length: 50 }, (_, i) => i + 1));
    });

    it("When a write is attempted outside write(), then it throws, and a step that throws rejects", async () => {
      const t = engine.table<number>("t");
      expect(() => t.put("x", 1)).to.throw(/outside Engine.write/);
      let err: unknown;
      await engine
        .write(() => {
          throw new Error("boom");
        })
        .catch((e: unknown) => (err = e));
      expect(String(err)).to.include("boom");
    });

    it("When a step throws after writing, then none of its writes remain, and the other steps of its batch are kept", async () => {
      const t = engine.table<string>("steps");
      await engine.write(() => {
        t.put("kept", "before");
        t.put("gone", "before");
      });
      const [a, b, c] = await Promise.allSettled([
        engine.write(() => t.put("first", "1")),
        engine.write(() => {
          t.put("kept", "changed");
          t.remove("gone");
          t.put(["new", 1], "added");
          throw new Error("boom");
        }),
        engine.write(() => t.put("third", "3")),
      ]);
      expect([a.status, b.status, c.status]).to.deep.equal(["fulfilled", "rejected", "fulfilled"]);
      expect(t.get("kept")).to.equal("before");
      expect(t.get("gone")).to.equal("before");
      expect(t.has(["new", 1])).to.equal(false);
      expect(t.range(["new"])).to.deep.equal([]);
      expect([t.get("first"), t.get("third")]).to.deep.equal(["1", "3"]);
    });

    it("When a record is added (create-if-absent), then it is written only where no live one is: an expired one is replaced and swept by its new time", async () => {
      const t = engine.table<string>("add");
      const first = await engine.write(() => [
        t.add("live", "a", Date.now() + 60_000),
        t.add("live", "b", Date.now() + 60_000),
        t.add("old", "c", Date.now() + 200),
        t.add(["x", 1], "d"),
        t.add(["x", 1], "e"),
      ]);
      expect(first).to.deep.equal([true, false, true, true, false]);
      expect(t.get("live")).to.equal("a");
      expect(t.get(["x", 1])).to.equal("d");
      await sleep(300);
      const until = Date.now() + 60_000;
      expect(await engine.write(() => [t.add("old", "g", until), t.add("old", "h", until)])).to.deep.equal([
        true,
        false,
      ]);
      expect(t.get("old")).to.equal("g");
      expect(t.expiresAt("old")).to.equal(until);
      await engine.sweep(); // the old record's index entry is due: it no longer deletes the new record
      expect(t.get("old")).to.equal("g");
      expect(() => t.add("outside", "i")).to.throw(/outside Engine.write/);
    });

    it("When a record's time passes, then no read returns it, and the sweep deletes it with its index entry", async () => {
      const t = engine.table<string>("exp");
      await engine.write(() => {
        t.put(["g", "short"], "a", Date.now() + 300);
        t.put(["g", "long"], "b", Date.now() + 60_000);
        t.put(["g", "forever"], "c");
      });
      const held = engine.heldCount();
      await sleep(400);
      expect(t.get(["g", "short"])).to.equal(undefined);
      expect(t.has(["g", "short"])).to.equal(false);
      expect(t.range(["g"]).map((e) => e.value)).to.deep.equal(["c", "b"]); // key order: forever, long
      expect(t.count(["g"])).to.equal(2);
      expect(t.expiresAt(["g", "forever"])).to.equal(0);
      await engine.sweep();
      expect(engine.heldCount()).to.be.below(held);
      expect(engine.dump().join("\n")).to.not.include("short");
    });

    it("When ranges are read, then they come in key order (numbers as numbers), after/before exclusive, limited", async () => {
      const t = engine.table<number>("r");
      await engine.write(() => {
        for (const ms of [1000, 999, 20, 3]) for (const seq of [1, 0]) t.put(["app", ms, seq], ms * 10 + seq);
        t.put(["other", 1, 0], -1);
        t.put(["ap", 1, 0], -2);
      });
      expect(t.range(["app"]).map((e) => e.value)).to.deep.equal([30, 31, 200, 201, 9990, 9991, 10000, 10001]);
      expect(t.range(["app"], { after: ["app", 20, 0], limit: 3 }).map((e) => e.value)).to.deep.equal([
        201, 9990, 9991,
      ]);
      expect(t.range(["app"], { before: ["app", 999] }).map((e) => e.value)).to.deep.equal([30, 31, 200, 201]);
      expect(t.range([]).length).to.equal(10);
      expect(t.range(["nope"])).to.deep.equal([]);
    });

    it("When ranges are read in reverse, then they come newest first, within the prefix, after/before exclusive, limited", async () => {
      const t = engine.table<number>("r");
      await engine.write(() => {
        for (const ms of [1000, 999, 20, 3]) for (const seq of [1, 0]) t.put(["app", ms, seq], ms * 10 + seq);
        t.put(["app", "user", 1], -3); // a string part sorts after every number
        t.put(["other", 1, 0], -1);
        t.put(["ap", 1, 0], -2);
        t.put(["apq", 1, 0], -4);
      });
      const back = (prefix: KeyPart[], opts = {}) => t.range(prefix, { ...opts, reverse: true }).map((e) => e.value);
      expect(back(["app"])).to.deep.equal([-3, 10001, 10000, 9991, 9990, 201, 200, 31, 30]);
      expect(back(["app"], { before: ["app", 999, 1], limit: 3 })).to.deep.equal([9990, 201, 200]);
      expect(back(["app"], { after: ["app", 20, 0] })).to.deep.equal([-3, 10001, 10000, 9991, 9990, 201]);
      expect(back(["app"], { before: ["app", 1000, 0], after: ["app", 20, 1] })).to.deep.equal([9991, 9990]);
      expect(back([]).length).to.equal(12);
      expect(back([])[0]).to.equal(-1); // "other" is the last key of the table
      expect(back(["nope"])).to.deep.equal([]);
      expect(back(["app", 20])).to.deep.equal([201, 200]);
    });

    it("When a record is read, then changing what was read does not change what is stored", async () => {
      const t = engine.table<{ list: string[] }>("copies");
      const v = { list: ["a"] };
      await engine.write(() => t.put("k", v));
      v.list.push("changed after put");
      const read = t.get("k")!;
      read.list.push("changed after get");
      expect(t.get("k")).to.deep.equal({ list: ["a"] });
    });
  });
}
