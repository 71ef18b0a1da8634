// The per-app history of solve results (docs/realtime.md#history), read back for a reconnecting client's
// replay. The store's solve step records every counted attempt on an owned challenge there.
import type { Config } from "../config.js";
import type { HistoryLimits, Store } from "../store/port.js";

export class ChannelEvents {
  private readonly limits: HistoryLimits;

  constructor(
    private readonly store: Store,
    config: Pick<Config, "historyMaxEvents" | "historyTtl">,
  ) {
    this.limits = { maxEvents: config.historyMaxEvents, ttlSeconds: config.historyTtl };
  }

  /**
   * Up to `count` events after `after`, oldest first; `complete` is false when something after
   * `after` was already trimmed from the history (the caller must then resynchronise).
   */
  page(app: string, after: string, count: number) {
    return this.store.events.readAfter(app, after, count, this.limits);
  }
}
