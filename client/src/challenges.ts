// Challenges (docs/http-api.md#challenges): create, read the question, solve.
//
// The API takes its values from headers, or from a JSON body when a header is absent. Headers
// carry UTF-8, but browsers refuse any header value outside Latin-1 (and fetch in Node sends
// Latin-1 bytes, which the service rightly reads as broken UTF-8), and HTTP trims a header's
// outer spaces. So a request goes in headers only when every value survives that unchanged, and
// in the JSON body otherwise. The caller never chooses.
import type { NewChallengeResponse, SolveResponse } from "../../src/protocol.js";
import { SigilError } from "./errors.js";
import { isObject, readJson, send, type HttpOptions } from "./http.js";

export interface CreateChallengeInput {
  /** 1–1000 characters, any Unicode. */
  question: string;
  /** 1–200 characters; compared after NFC normalisation. */
  answer: string;
  /** Seconds until it expires: 60 to 2,592,000 (default 86,400). */
  ttl?: number;
  /** A CUSTOM TOKEN: the challenge then belongs to its app, and its results are pushed live. */
  token?: string;
}

export interface ChallengeApi {
  create(input: CreateChallengeInput): Promise<NewChallengeResponse>;
  /** The question as given; an unknown or expired key throws SigilError `not_found`. */
  question(key: string): Promise<string>;
  /** `{correct}`; a wrong answer is not an error. Too many wrong ones throw `rate_limited` with `retryAfter`. */
  solve(key: string, a: string): Promise<SolveResponse>;
}

/** True when a header carries the value exactly: printable ASCII with no outer spaces. */
export function fitsInHeader(value: string): boolean {
  return /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value);
}

/** Either every value as a header, or every value in a JSON body (see the top of this file). */
export function challengeRequest(
  fields: Record<string, string | number>,
  extra: Record<string, string> = {},
): RequestInit {
  const inHeaders = Object.values(fields).every((v) => typeof v === "number" || fitsInHeader(v));
  if (inHeaders) {
    const headers: Record<string, string> = { ...extra, "content-type": "application/json" };
    for (const [name, v] of Object.entries(fields)) headers[name] = String(v);
    return { method: "POST", headers };
  }
  return { method: "POST", headers: { ...extra, "content-type": "application/json" }, body: JSON.stringify(fields) };
}

const isKey = (v: unknown): v is NewChallengeResponse => isObject(v) && typeof v.key === "string";
const isSolved = (v: unknown): v is SolveResponse => isObject(v) && typeof v.correct === "boolean";

export function challengeApi(http: HttpOptions): ChallengeApi {
  return {
    async create({ question, answer, ttl, token }) {
      const fields: Record<string, string | number> = { question, answer };
      if (ttl !== undefined) fields.ttl = ttl;
      const auth: Record<string, string> = token !== undefined ? { authorization: `Bearer ${token}` } : {};
      const res = await send(http, "/challenge/new", challengeRequest(fields, auth));
      const { key } = await readJson(res, isKey, "challenge/new");
      return { key };
    },

    async question(key) {
      // A key is always ASCII (a UUID), so it always travels as a header; anything else would
      // make fetch itself throw, so say what the service would say.
      if (!fitsInHeader(key)) throw new SigilError("invalid_request", "key must be a challenge key (a UUID).", 400);
      const res = await send(http, "/challenge/q", { method: "GET", headers: { key } });
      return res.text();
    },

    async solve(key, a) {
      const res = await send(http, "/challenge/solve", challengeRequest({ key, a }));
      const { correct } = await readJson(res, isSolved, "challenge/solve");
      return { correct };
    },
  };
}
