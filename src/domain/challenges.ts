// Challenges: a question with a secret answer, addressed by a random key (docs/http-api.md#challenges).
import { v4 as uuidv4 } from "uuid";
import type { Config } from "../config.js";
import { notFound, rateLimited } from "../errors.js";
import type { SolveRules, Store } from "../store/port.js";
import { NewChallengeInput, QuestionInput, SolveInput, type Unchecked } from "./challenge-inputs.js";
import { parseInput } from "./input.js";
import { keyedHash } from "./secrets.js";
import { isoTime } from "../iso-time.js";

/** What a solve attempt decided (an owned challenge's attempt is also in its app's history). */
export interface SolveOutcome {
  correct: boolean;
}

export interface ChallengeDeps {
  store: Store;
  secret: string;
  limits: Config["solveLimits"];
  /** The app history's bounds: the solve step records an owned challenge's attempts there. */
  history: Pick<Config, "historyMaxEvents" | "historyTtl">;
}

export interface NewChallenge {
  question: string;
  answer: string;
  ttlSeconds: number;
  owner?: string;
}

/** The owner of a new challenge (an app's client_id), asked for only once the input is valid. */
export type OwnerOf = () => Promise<string | undefined>;

const noOwner: OwnerOf = async () => undefined;

export class Challenges {
  private readonly rules: SolveRules;

  constructor(private readonly deps: ChallengeDeps) {
    this.rules = {
      limits: deps.limits,
      history: { maxEvents: deps.history.historyMaxEvents, ttlSeconds: deps.history.historyTtl },
    };
  }

  private hashAnswer(key: string, answer: string): string {
    return keyedHash(this.deps.secret, "challenge-answer", key, answer.normalize("NFC"));
  }

  // The use cases, one per operation whatever the transport (HTTP, hot routes, sockets): the input
  // as the transport read it, validated here against the schemas and their limits; the reply body.

  /** Creates a challenge. A malformed input fails before the owner is asked for (a 400, not a 401). */
  async newChallenge(raw: Unchecked<typeof NewChallengeInput>, ownerOf: OwnerOf = noOwner): Promise<{ key: string }> {
    const input = parseInput(NewChallengeInput, { question: raw.question, answer: raw.answer, ttl: raw.ttl });
    const owner = await ownerOf();
    const key = await this.create({
      question: input.question,
      answer: input.answer,
      ttlSeconds: input.ttl,
      ...(owner !== undefined ? { owner } : {}),
    });
    return { key };
  }

  /** Tries an answer from a client at address (the attempt limits count per address). */
  async solveChallenge(raw: Unchecked<typeof SolveInput>, address: string): Promise<{ correct: boolean }> {
    const input = parseInput(SolveInput, { key: raw.key, a: raw.a });
    const { correct } = await this.solve(input.key, input.a, address);
    return { correct };
  }

  /** A challenge's question. */
  async readQuestion(raw: Unchecked<typeof QuestionInput>): Promise<string> {
    const { key } = parseInput(QuestionInput, { key: raw.key });
    return this.question(key);
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
   * Tries an answer. The store decides in one atomic step: refused while wrong answers have
   * reached a limit (per (key, address) and per key), the right answer too; else compared, counted
   * only when wrong, and, on an owned challenge, recorded in the app's history and fanned out.
   */
  async solve(key: string, answer: string, address: string): Promise<SolveOutcome> {
    const attempt = { key, address, answerHash: this.hashAnswer(key, answer), at: isoTime() };
    const r = await this.deps.store.challenges.solve(attempt, this.rules);
    if (r.status === "unknown") throw unknownChallenge();
    if (r.status === "limited") throw rateLimited(r.retryAfterMs / 1000, "err.challengeThrottled");
    return { correct: r.correct };
  }
}

const unknownChallenge = () => notFound("err.unknownChallenge");
