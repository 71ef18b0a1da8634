// The embedded store's channel histories: one history per (app, channel) on the Histories of
// realtime.ts (the same ids, trimming and completeness as the app's events), trimmed by the sweep
// when idle and forgotten when idle for twice HISTORY_TTL and a second, as on Redis
// (store/redis/channels.ts).
import type { ChannelLog, ChannelMessage, ChannelRead, HistoryLimits } from "../port.js";
import type { Engine } from "./engine.js";
import { Histories, forgettable, type EmbeddedBus, type Head } from "./realtime.js";

/** A channel message as the embedded store keeps it (its id and channel are in the key). */
interface StoredMessage {
  d: string;
  t: string;
}

export class EmbeddedChannelLog implements ChannelLog {
  private readonly history;
  private readonly heads;
  /** app → the newest last-message time (ms) of its forgotten channels. */
  private readonly forgotten;
  constructor(
    private readonly engine: Engine,
    private readonly bus: EmbeddedBus,
  ) {
    this.heads = engine.table<Head>("channel-heads");
    this.forgotten = engine.table<number>("channel-forgotten");
    this.history = new Histories(engine, engine.table<StoredMessage>("channel-messages"), this.heads);
    engine.onSweep(() => this.trimIdle());
  }

  /**
   * With each sweep of the engine: the histories of channels that went quiet are trimmed by age
   * as a publish or a read would trim them, so a channel published to once does not keep its
   * messages past HISTORY_TTL (Redis: the stream expires). It walks the heads (one small record a
   * channel), and trims in batches of 500 channels a write.
   */
  private async trimIdle(): Promise<void> {
    const { due, idle } = this.history.sweepLists();
    for (let i = 0; i < due.length; i += 500) {
      const batch = due.slice(i, i + 500);
      await this.engine.write(() => {
        for (const key of batch) this.history.trimIdleIn(key, key);
      });
    }
    // Channels idle for twice HISTORY_TTL and a second are forgotten (Redis: their keys expire),
    // each app keeping the newest last-message time of what it forgot (its horizon).
    for (let i = 0; i < idle.length; i += 500) {
      const batch = idle.slice(i, i + 500);
      await this.engine.write(() => {
        const now = Date.now();
        for (const key of batch) {
          const h = this.heads.get(key);
          if (!h || !forgettable(h, now)) continue; // published to meanwhile
          const app = key[0]!;
          this.history.deleteIn(key, key);
          if ((this.forgotten.get(app) ?? 0) < h.last[0]) this.forgotten.put(app, h.last[0]);
        }
      });
    }
  }

  async publish(app: string, messages: Array<Omit<ChannelMessage, "id">>, limits: HistoryLimits): Promise<string[]> {
    const ids = await this.engine.write(() => {
      // A channel with no head: new, or forgotten; after the app's horizon, if it forgot any.
      const horizon = this.forgotten.get(app);
      const cutIfNew = horizon === undefined ? "0-0" : `${horizon + 1}-0`;
      return messages.map((m) =>
        this.history.appendIn([app, m.channel], [app, m.channel], { d: m.data, t: m.at }, limits, cutIfNew),
      );
    });
    messages.forEach((m, i) => void this.bus.publish({ type: "message", app, message: { id: ids[i]!, ...m } }));
    return ids;
  }

  async readAfter(
    app: string,
    channel: string,
    since: string,
    count: number,
    limits: HistoryLimits,
  ): Promise<ChannelRead> {
    const { entries, ...rest } = await this.history.read([app, channel], [app, channel], since, count, limits);
    return { messages: entries.map((e) => ({ id: e.id, channel, data: e.value.d, at: e.value.t })), ...rest };
  }

  async deleteAll(app: string): Promise<void> {
    await this.engine.write(() => {
      for (const { key } of this.heads.range([app])) this.history.deleteIn([app, key[1]!], [app, key[1]!]);
      this.forgotten.remove(app);
    });
  }
}
