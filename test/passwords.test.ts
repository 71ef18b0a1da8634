import { expect } from "chai";
import { loadConfig } from "../src/config.js";
import { DEFAULT_PASSWORD_COST, Passwords, verifyPassword } from "../src/domain/passwords.js";

describe("Password hashes (PASSWORD_HASH_COST)", () => {
  it("When the cost changes, then hashes made at the old cost still verify (each carries its parameters)", async () => {
    const strong = new Passwords(DEFAULT_PASSWORD_COST);
    const cheap = new Passwords(10);
    const a = await strong.hash("correct horse");
    const b = await cheap.hash("correct horse");
    expect(a.split("$")[1]).to.equal(String(2 ** DEFAULT_PASSWORD_COST));
    expect(b.split("$")[1]).to.equal("1024");
    expect(await cheap.verify("correct horse", a)).to.equal(true);
    expect(await strong.verify("correct horse", b)).to.equal(true);
    expect(await strong.verify("wrong horse", b)).to.equal(false);
  });

  it("When a stored hash names parameters this code never writes, then it does not verify (no huge allocation)", async () => {
    const good = await new Passwords(10).hash("pw");
    const parts = good.split("$");
    for (const [i, v] of [
      [1, String(2 ** 30)],
      [1, "1000"],
      [2, "64"],
      [3, "16"],
    ] as const) {
      const bad = [...parts];
      bad[i] = v;
      expect(await verifyPassword("pw", bad.join("$")), `part ${i} = ${v}`).to.equal(false);
    }
  });

  it("When PASSWORD_HASH_COST is set, then it is validated (10–20, default 14)", () => {
    const base = { SECRET: "s".repeat(32) };
    expect(loadConfig(base).config.passwordHashCost).to.equal(14);
    expect(loadConfig({ ...base, PASSWORD_HASH_COST: "12" }).config.passwordHashCost).to.equal(12);
    expect(() => loadConfig({ ...base, PASSWORD_HASH_COST: "9" })).to.throw();
    expect(() => loadConfig({ ...base, PASSWORD_HASH_COST: "21" })).to.throw();
  });
});
