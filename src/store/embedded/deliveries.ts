// The embedded store's delivery queue (docs/events.md#delivery): deliveries by id, an index by when
// they are due ([dueAt, id]), and each app's list of attempts ([app, at, n]). One process owns the
// data and takes from the queue; the CLI beside it only adds (its writes are the engine's).
import { randomUUID } from "node:crypto";
import type { AccessChange, Delivery, DeliveryAttempt, DeliveryStore, IdentityFeed, IdentityNotice } from "../port.js";
import type { Engine } from "./engine.js";
import type { EmbeddedBus } from "./realtime.js";

export class EmbeddedDeliveries implements DeliveryStore {
  private readonly items;
  private readonly due;
  private readonly log;
  constructor(private readonly engine: Engine) {
    this.items = engine.table<Delivery>("deliveries");
    this.due = engine.table<1>("delivery-due");
    this.log = engine.table<DeliveryAttempt>("delivery-log");
  }

  async enqueue(deliveries: Delivery[]): Promise<void> {
    await this.engine.write(() => {
      for (const d of deliveries) {
        this.items.put(d.id, d);
        this.due.put([d.dueAt, d.id], 1);
      }
    });
  }

  async take(now: number, limit: number, leaseMs: number): Promise<Delivery[]> {
    return this.engine.write(() => {
      const taken: Delivery[] = [];
      for (const { key } of this.due.range([], { before: [now + 1], limit })) {
        this.due.remove(key);
        const d = this.items.get(String(key[1]));
        if (!d) continue;
        const leased = { ...d, dueAt: now + leaseMs };
        this.items.put(d.id, leased);
        this.due.put([leased.dueAt, d.id], 1);
        taken.push(d);
      }
      return taken;
    });
  }

  async complete(id: string): Promise<void> {
    await this.engine.write(() => {
      const d = this.items.get(id);
      if (!d) return;
      this.due.remove([d.dueAt, id]);
      this.items.remove(id);
    });
  }

  async retry(delivery: Delivery): Promise<void> {
    await this.engine.write(() => {
      const d = this.items.get(delivery.id);
      if (d) this.due.remove([d.dueAt, d.id]);
      this.items.put(delivery.id, delivery);
      this.due.put([delivery.dueAt, delivery.id], 1);
    });
  }

  async record(app: string, attempt: DeliveryAttempt, keep: number): Promise<void> {
    await this.engine.write(() => {
      this.log.put([app, attempt.at, randomUUID()], attempt);
      const all = this.log.range([app]);
      for (const { key } of all.slice(0, Math.max(0, all.length - keep))) this.log.remove(key);
    });
  }

  async recent(app: string): Promise<DeliveryAttempt[]> {
    return this.log.range([app], { reverse: true }).map((e) => e.value);
  }

  async forgetApp(app: string): Promise<void> {
    await this.engine.write(() => this.log.range([app]).forEach((e) => this.log.remove(e.key)));
  }
}

/** Identity events through the process's bus (and, from the CLI, the notices the server reads). */
export class EmbeddedIdentityFeed implements IdentityFeed {
  constructor(private readonly bus: EmbeddedBus) {}
  async publish(app: string, notice: IdentityNotice): Promise<void> {
    await this.bus.publish({ type: "identity", app, notice });
  }
  async accessChanged(change: AccessChange): Promise<void> {
    await this.bus.publish({ type: "access", ...change });
  }
}
