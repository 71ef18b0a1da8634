// Event id order (src/event-ids.ts): one comparison for the server and the client, exact for ids
// whose parts are beyond 2^53 (where Number would round two different ids to the same value).
import { expect } from "chai";
import { compareEventIds as clientCompare, isNewEvent } from "../client/src/event-ids.js";
import { isEventId, orderEventIds } from "../src/event-ids.js";
import { compareEventIds as serverCompare } from "../src/store/port.js";

const sign = (n: number | undefined) => (n === undefined ? undefined : Math.sign(n));

describe("Event ids: one order for the server and the client", () => {
  // [a, b, expected sign of compare(a, b)]
  const cases: [string, string, -1 | 0 | 1][] = [
    ["999-0", "1000-0", -1],
    ["1000-10", "1000-9", 1],
    ["1000-1", "1000-1", 0],
    // 2^53 = 9007199254740992: Number("9007199254740993") is 9007199254740992.
    ["9007199254740993-0", "9007199254740992-0", 1],
    ["9007199254740992-0", "9007199254740993-0", -1],
    ["1-9007199254740993", "1-9007199254740992", 1],
    ["1-9007199254740992", "1-9007199254740993", -1],
    ["9999999999999999-9999999999999998", "9999999999999999-9999999999999999", -1],
    ["9999999999999999-0", "9999999999999998-9999999999999999", 1],
    // Leading zeros do not change the number.
    ["0010-0", "10-0", 0],
    ["010-0", "9-0", 1],
    ["0-0", "0-1", -1],
  ];

  for (const [a, b, expected] of cases) {
    it(`When ${a} is compared with ${b}, then both sides say ${expected}`, () => {
      expect(sign(serverCompare(a, b))).to.equal(expected);
      expect(sign(clientCompare(a, b))).to.equal(expected);
      expect(orderEventIds(a, b)).to.equal(expected);
      expect(sign(serverCompare(b, a))).to.equal(-expected || 0);
      expect(sign(clientCompare(b, a))).to.equal(-expected || 0);
    });
  }

  it("When an id beyond 2^53 follows the last one delivered, then the client counts it as new", () => {
    expect(isNewEvent("9007199254740993-0", "9007199254740992-0")).to.equal(true);
    expect(isNewEvent("1-9007199254740993", "1-9007199254740992")).to.equal(true);
    expect(isNewEvent("9007199254740992-0", "9007199254740993-0")).to.equal(false);
  });

  it("When an id is malformed, then the client gets undefined and the server throws", () => {
    for (const bad of ["nonsense", "1-", "-1", "1-2-3", "1.5-0", " 1-0", "1-0 ", "+1-0", ""]) {
      expect(clientCompare(bad, "1-0"), bad).to.equal(undefined);
      expect(clientCompare("1-0", bad), bad).to.equal(undefined);
      expect(() => serverCompare(bad, "1-0"), bad).to.throw(TypeError);
    }
  });

  it("When `since` is checked, then only two parts of 1 to 16 digits are event ids", () => {
    expect(isEventId("9999999999999999-9999999999999999")).to.equal(true);
    expect(isEventId("0-0")).to.equal(true);
    expect(isEventId("10000000000000000-0")).to.equal(false);
    expect(isEventId("1-10000000000000000")).to.equal(false);
    expect(isEventId("1-x")).to.equal(false);
    expect(isEventId(5)).to.equal(false);
  });
});
