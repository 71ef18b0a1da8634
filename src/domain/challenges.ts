// Challenges: a question with a secret answer, addressed by a random key (CONTRACT §5).
import { v4 as uuidv4 } from "uuid";
import type { Config } from "../config.js";
import { notFound, rateLimited } from "../errors.js";
import type { AttemptLimiter, Store } from "../store/port.js";
import { keyedHash, sameDigest } from "./secrets.js";

/** What happened on one solve attempt; published to the owning app's custom clients. */
export interface SolveOutcome {
  key: string;
  correct: boolean;
  /** client_id of the owning app, when the challenge has one. */
  owner?: string;
  at: Date;
}

export interface ChallengeDeps {
  store: Store;
  secret: string;
  limits: Config["solveLimits"];
  /**
   * Called after every counted attempt on an owned challenge, before the answer is returned; the
   * realtime channel records and fans the event out here. A failure fails the solve (503), so an
   * acknowledged attempt is never missing from the app's history.
   */
  onOwnedAttempt?: (outcome: SolveOutcome & { owner: string }) => Promise<void>;
}

export interface NewChallenge {
  question: string;
  answer: string;
  ttlSeconds: number;
  owner?: string;
}

export class Challenges {
  private readonly perAddress: AttemptLimiter;
  private readonly perKey: AttemptLimiter;

  constructor(private readonly deps: ChallengeDeps) {
    const l = deps.limits;
    this.perAddress = deps.store.limiter({ name: "solve-addr", points: l.perAddress, windowSeconds: l.perAddressWindow });
    this.perKey = deps.store.limiter({ name: "solve-key", points: l.perKey, windowSeconds: l.perKeyWindow });
  }

  private hashAnswer(key: string, answer: string): string {
    return keyedHash(this.deps.secret, "challenge-answer", key, answer.normalize("NFC"));
  }

  async create(input: NewChallenge): Promise<string> {
    for (;;) {
      const key = uuidv4();
      const record = {
        question: input.question,
        answerHash: this.hashAnswer(key, input.answer),
        createdAt: Date.now(),
        ...(input.owner !== undefined ? { owner: input.owner } : {}),
      };
      // A v4 collision is astronomically unlikely; NX makes even that harmless.
      if (await this.deps.store.challenges.create(key, record, input.ttlSeconds)) return key;
    }
  }

  async question(key: string): Promise<string> {
    const rec = await this.deps.store.challenges.get(key);
    if (!rec) throw unknownChallenge();
    return rec.question;
  }

  /**
   * Tries an answer. Wrong attempts are limited per (key, address) and per key; an attempt is
   * reserved before the comparison (so concurrent guesses cannot overshoot the limit) and
   * refunded when it was right. While limited, every attempt is refused, the right one too.
   */
  async solve(key: string, answer: string, address: string): Promise<SolveOutcome> {
    const rec = await this.deps.store.challenges.get(key);
    if (!rec) throw unknownChallenge();

    const addrId = `${key}:${address}`;
    const [a, k] = await Promise.all([this.perAddress.consume(addrId), this.perKey.consume(key)]);
    if (!a.allowed || !k.allowed) {
      await Promise.all([a.allowed && this.perAddress.refund(addrId), k.allowed && this.perKey.refund(key)]);
      const waitMs = Math.max(a.allowed ? 0 : a.retryAfterMs, k.allowed ? 0 : k.retryAfterMs);
      throw rateLimited(waitMs / 1000, "Too many wrong answers for this challenge; try again later.");
    }

    const correct = sameDigest(this.hashAnswer(key, answer), rec.answerHash);
    if (correct) await Promise.all([this.perAddress.refund(addrId), this.perKey.refund(key)]);

    const outcome: SolveOutcome = { key, correct, at: new Date() };
    if (rec.owner !== undefined) {
      outcome.owner = rec.owner;
      await this.deps.onOwnedAttempt?.({ ...outcome, owner: rec.owner });
    }
    return outcome;
  }
}

const unknownChallenge = () => notFound("No challenge has this key, or it has expired.");
