// Pure parts of the client: where a challenge's values travel, Retry-After, errors from acks,
// event id order (the resume guard of the realtime channel), and the base URL requirement.
import { expect } from "chai";
import { challengeRequest, fitsInHeader } from "../client/src/challenges.js";
import { parseRetryAfter, SigilError } from "../client/src/errors.js";
import { compareEventIds, isNewEvent } from "../client/src/event-ids.js";
import { createClient } from "../client/src/index.js";

describe("Client: headers or JSON body", () => {
  it("When every value is printable ASCII without outer spaces, then they all go in headers", () => {
    const init = challengeRequest({ question: "What is 6 x 7?", answer: "42", ttl: 60 }, { authorization: "Bearer t" });
    expect(init.body).to.equal(undefined);
    expect(init.headers).to.deep.equal({
      authorization: "Bearer t",
      "content-type": "application/json",
      question: "What is 6 x 7?",
      answer: "42",
      ttl: "60",
    });
  });

  it("When any value is not, then they all go in the JSON body (ttl as a number)", () => {
    const init = challengeRequest({ question: "plain", answer: "東京", ttl: 60 });
    expect(init.headers).to.deep.equal({ "content-type": "application/json" });
    expect(JSON.parse(String(init.body))).to.deep.equal({ question: "plain", answer: "東京", ttl: 60 });
  });

  for (const [value, fits] of [
    ["abc", true],
    ["a b", true],
    ["~!", true],
    ["", false],
    [" a", false],
    ["a ", false],
    ["a\tb", false],
    ["é", false],
    ["line\nbreak", false],
    ["\x7f", false],
  ] as Array<[string, boolean]>) {
    it(`then ${JSON.stringify(value)} ${fits ? "fits" : "does not fit"} in a header`, () => {
      expect(fitsInHeader(value)).to.equal(fits);
    });
  }
});

describe("Client: Retry-After and errors that did not come over HTTP", () => {
  it("When Retry-After is seconds or an HTTP date, then retryAfter is seconds", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("120", now)).to.equal(120);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now)).to.equal(30);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:00:00 GMT", now)).to.equal(0);
    expect(parseRetryAfter("soon", now)).to.equal(undefined);
    expect(parseRetryAfter(null, now)).to.equal(undefined);
  });

  it("When a socket ack carries an error object, then the SigilError has the status that code has over HTTP", () => {
    const e = SigilError.fromObject({ error: "rate_limited", error_description: "Slow down." });
    expect(e).to.include({ code: "rate_limited", status: 429, description: "Slow down." });
    expect(e.message).to.equal("rate_limited: Slow down.");
    expect(SigilError.fromObject({ error: "invalid_request", error_description: "x" }).status).to.equal(400);
    expect(SigilError.fromObject({ nonsense: true }).code).to.equal("invalid_response");
    expect(new SigilError("state_mismatch", "x").status).to.equal(0);
  });
});

describe("Client: event ids (the resume guard)", () => {
  it("When ids are compared, then milliseconds then sequence count as numbers, not text", () => {
    expect(compareEventIds("999-0", "1000-0")).to.be.lessThan(0);
    expect(compareEventIds("1000-10", "1000-9")).to.be.greaterThan(0);
    expect(compareEventIds("1000-1", "1000-1")).to.equal(0);
    expect(compareEventIds("nonsense", "1000-1")).to.equal(undefined);
  });

  it("When an event is at or before the last one delivered, then it is not new; an unreadable id is passed on", () => {
    expect(isNewEvent("5-0", undefined)).to.equal(true);
    expect(isNewEvent("5-1", "5-0")).to.equal(true);
    expect(isNewEvent("5-0", "5-0")).to.equal(false);
    expect(isNewEvent("4-9", "5-0")).to.equal(false);
    expect(isNewEvent("weird", "5-0")).to.equal(true);
  });
});

describe("Client: the base URL", () => {
  it("When no baseUrl is given outside a page that loaded /client.js, then createClient says it is required", () => {
    expect(() => createClient()).to.throw(TypeError, /baseUrl is required/);
  });
});
