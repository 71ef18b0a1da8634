// The per-app history of solve results (CONTRACT §6): recorded on every counted attempt on an
// owned challenge, read back for a reconnecting client's replay.
import type { Config } from "../config.js";
import type { Store } from "../store/port.js";
import type { HistoryLimits, StoredEvent } from "../store/realtime-port.js";
import type { SolveOutcome } from "./challenges.js";

export class ChannelEvents {
  private readonly limits: HistoryLimits;

  constructor(
    private readonly store: Store,
    config: Pick<Config, "historyMaxEvents" | "historyTtl">,
  ) {
    this.limits = { maxEvents: config.historyMaxEvents, ttlSeconds: config.historyTtl };
  }

  /** Stores the attempt in the app's history; the store's feed tells every node. */
  record(outcome: SolveOutcome & { owner: string }): Promise<StoredEvent> {
    return this.store.events.append(outcome.owner, { key: outcome.key, correct: outcome.correct, at: outcome.at.toISOString() }, this.limits);
  }

  /**
   * Up to `count` events after `after`, oldest first; `complete` is false when something after
   * `after` was already trimmed from the history (the caller must then resynchronise).
   */
  page(app: string, after: string, count: number) {
    return this.store.events.readAfter(app, after, count, this.limits);
  }
}
