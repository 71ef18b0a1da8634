// Updates of one user's record at once (AccountStore.update changes a record in one atomic
// step): none is lost, on the embedded store and on Redis.
import { expect } from "chai";
import { createServices, type Services } from "../src/domain/services.js";
import { describeBackends } from "./support/backends.js";
import type { TestNode } from "./support/nodes.js";

/** A valid 1×1 transparent PNG. */
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000b49444154789c6360000200000500017a5eab3f0000000049454e44ae426082",
  "hex",
);

describeBackends("Updates of one user at once", (backend) => {
  let node: TestNode;
  let services: Services;
  beforeEach(async () => {
    node = await backend.startNode();
    services = createServices(node.config, node.opened.store);
  });

  it("When 50 different updates of one user are sent at once, then none is lost", async function () {
    this.timeout(60_000);
    const user = await services.accounts.create({
      username: "alice",
      password: "correct horse battery",
      displayName: "Alice",
    });
    const pictures = 46;
    await Promise.all([
      ...Array.from({ length: pictures }, () => services.accounts.setPicture(user.id, PNG)),
      services.accounts.setDisplayName(user.id, "Alice Liddell"),
      services.email.setEmail(user.id, "alice@example.com", "de", { browser: undefined, address: "10.0.0.1" }),
      services.accounts.setPassword((await services.accounts.byId(user.id))!, "a new password 2"),
      services.twoFactor.reset(user.id),
    ]);
    const after = (await services.accounts.byId(user.id))!;
    expect(after.picture?.version, "every upload counted").to.equal(pictures);
    expect(after.displayName).to.equal("Alice Liddell");
    expect(after.email).to.equal("alice@example.com");
    expect(after.locale).to.equal("de");
    expect((await services.accounts.signIn("alice", "a new password 2", "10.0.0.1")).id).to.equal(user.id);
    expect(after.username).to.equal("alice");
    expect(after.createdAt).to.equal(user.createdAt);
  });

  it("When 25 display names and 25 pictures of one user are sent at once, then every upload counts and the address stays", async function () {
    this.timeout(60_000);
    const user = await services.accounts.create({ username: "bob.x", password: "correct horse battery" });
    await services.email.setEmail(user.id, "bob@example.com", "en", { browser: undefined, address: "10.0.0.1" });
    const changes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        i % 2 === 0
          ? services.accounts.setDisplayName(user.id, `Bob ${i}`)
          : services.accounts.setPicture(user.id, PNG),
      ),
    );
    expect(changes).to.have.length(50);
    const after = (await services.accounts.byId(user.id))!;
    expect(after.picture?.version).to.equal(25);
    expect(after.displayName).to.match(/^Bob \d+$/);
    expect(after.email).to.equal("bob@example.com");
  });

  it("When a user is deleted while being updated, then the updates do not bring the record back", async function () {
    this.timeout(60_000);
    const user = await services.accounts.create({ username: "carol", password: "correct horse battery" });
    await Promise.all([
      ...Array.from({ length: 25 }, (_, i) => services.accounts.setDisplayName(user.id, `Carol ${i}`)),
      node.opened.store.accounts.delete(user),
      ...Array.from({ length: 24 }, () => services.accounts.setPicture(user.id, PNG)),
    ]);
    expect(await services.accounts.byId(user.id)).to.equal(null);
    expect(await services.accounts.byUsername("carol")).to.equal(null);
  });
});
