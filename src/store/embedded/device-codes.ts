// The embedded store's device authorization requests (store/ports/device-codes.ts): the request by
// its device code's hash (kept a while past its expiry, for expired_token), and the user code's
// hash → the device code's hash, expiring with the request. Each step is one write.
import type { DeviceApproval, DeviceCodeRecord, DeviceCodeStore, DevicePoll } from "../port.js";
import type { Engine } from "./engine.js";

interface Entry {
  record: DeviceCodeRecord;
  /** Its user code's hash (forgetApp removes it too). */
  userCodeHash: string;
  state: "pending" | "approved" | "denied" | "taken";
  approval?: DeviceApproval;
  /** The polling interval now (seconds), and when the device last polled (ms). */
  interval: number;
  lastPoll?: number;
}

export class EmbeddedDeviceCodes implements DeviceCodeStore {
  private readonly requests;
  private readonly userCodes;
  /** [user, device hash]: approved, not taken yet; [client, device hash]: every request of an app. */
  private readonly byUser;
  private readonly byApp;

  constructor(private readonly engine: Engine) {
    this.requests = engine.table<Entry>("device-requests");
    this.userCodes = engine.table<string>("device-user-codes");
    this.byUser = engine.table<1>("device-requests-by-user");
    this.byApp = engine.table<1>("device-requests-by-app");
  }

  create(deviceHash: string, userCodeHash: string, record: DeviceCodeRecord, interval: number, keep: number) {
    return this.engine.write(() => {
      if (this.userCodes.has(userCodeHash)) return false;
      this.userCodes.put(userCodeHash, deviceHash, record.expiresAt);
      const until = Date.now() + keep * 1000;
      this.requests.put(deviceHash, { record, userCodeHash, state: "pending", interval }, until);
      this.byApp.put([record.clientId, deviceHash], 1, until);
      return true;
    });
  }

  /** Inside or outside write(): the live pending request of a user code. */
  private find(userCodeHash: string) {
    const deviceHash = this.userCodes.get(userCodeHash);
    const entry = deviceHash === undefined ? undefined : this.requests.get(deviceHash);
    if (!deviceHash || !entry || entry.state !== "pending" || entry.record.expiresAt <= Date.now()) return null;
    return { deviceHash, entry };
  }

  async pending(userCodeHash: string) {
    const found = this.find(userCodeHash);
    return found && { deviceHash: found.deviceHash, record: found.entry.record };
  }

  decide(userCodeHash: string, approval: DeviceApproval | null) {
    return this.engine.write(() => {
      const found = this.find(userCodeHash);
      if (!found) return false;
      const { deviceHash, entry } = found;
      const next: Entry = approval ? { ...entry, state: "approved", approval } : { ...entry, state: "denied" };
      this.requests.put(deviceHash, next, this.requests.expiresAt(deviceHash));
      if (approval) this.byUser.put([approval.userId, deviceHash], 1, this.requests.expiresAt(deviceHash));
      this.userCodes.remove(userCodeHash);
      return true;
    });
  }

  poll(deviceHash: string, clientId: string, now: number) {
    return this.engine.write((): DevicePoll => {
      const entry = this.requests.get(deviceHash);
      if (!entry || entry.record.clientId !== clientId) return { kind: "unknown" };
      if (entry.state === "taken") return { kind: "taken" };
      if (now >= entry.record.expiresAt) return { kind: "expired" };
      const keep = (e: Entry) => this.requests.put(deviceHash, e, this.requests.expiresAt(deviceHash));
      if (entry.state === "pending") {
        const tooSoon = entry.lastPoll !== undefined && now - entry.lastPoll < entry.interval * 1000;
        const interval = tooSoon ? entry.interval + 5 : entry.interval;
        keep({ ...entry, interval, lastPoll: now });
        return tooSoon ? { kind: "slow_down", interval } : { kind: "pending" };
      }
      if (entry.state === "denied") return { kind: "denied" };
      // Taken: who allowed it is the grant's business from here on, not this record's.
      keep({ record: entry.record, userCodeHash: entry.userCodeHash, state: "taken", interval: entry.interval });
      this.byUser.remove([entry.approval!.userId, deviceHash]);
      return { kind: "approved", record: entry.record, approval: entry.approval! }; // set when approved
    });
  }

  forgetUser(userId: string) {
    return this.engine.write(() => {
      for (const { key } of this.byUser.range([userId])) {
        this.byUser.remove(key);
        this.requests.remove(key[1]!); // [user, device hash]
      }
    });
  }

  forgetApp(clientId: string) {
    return this.engine.write(() => {
      for (const { key } of this.byApp.range([clientId])) {
        const deviceHash = key[1]!; // [client, device hash]
        const entry = this.requests.get(deviceHash);
        if (entry) {
          this.userCodes.remove(entry.userCodeHash);
          if (entry.approval) this.byUser.remove([entry.approval.userId, deviceHash]);
        }
        this.requests.remove(deviceHash);
        this.byApp.remove(key);
      }
    });
  }
}
