// Where a delivery may go (src/domain/public-address.ts, DELIVERY_ALLOW_PRIVATE): public addresses
// only; a name is refused when any of its addresses is not public.
import { expect } from "chai";
import { isNotPublic, publicOnlyLookup } from "../src/domain/public-address.js";

describe("Deliveries: public addresses only", () => {
  it("When an address is loopback, private, link-local, shared, multicast or unspecified (v4, v6, v4-mapped), then it is not public; a public one is", () => {
    const notPublic = [
      "127.0.0.1",
      "127.8.9.10",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fd00::1",
      "fc00::abcd",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "not an address",
    ];
    for (const a of notPublic) expect(isNotPublic(a), a).to.equal(true);
    for (const a of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])
      expect(isNotPublic(a), a).to.equal(false);
  });

  it("When a name resolves to loopback, then the lookup refuses it (ENOTPUBLIC)", async () => {
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      publicOnlyLookup("localhost", {}, (e) => resolve(e)),
    );
    expect(err?.code).to.equal("ENOTPUBLIC");
  });
});
