// The embedded store's device authorization requests (store/ports/device-codes.ts): the request by
// its device code's hash (kept a while past its expiry, for expired_token), and the user code's
// hash → the device code's hash, expiring with the request. Each step is one write.
import type { DeviceApproval, DeviceCodeRecord, DeviceCodeStore, DevicePoll } from "../port.js";
import type { Engine } from "./engine.js";

interface Entry {
  record: DeviceCodeRecord;
  state: "pending" | "approved" | "denied" | "taken";
  approval?: DeviceApproval;
  /** The polling interval now (seconds), and when the device last polled (ms). */
  interval: number;
  lastPoll?: number;
}

export class EmbeddedDeviceCodes implements DeviceCodeStore {
  private readonly requests;
  private readonly userCodes;

  constructor(private readonly engine: Engine) {
    this.requests = engine.table<Entry>("device-requests");
    this.userCodes = engine.table<string>("device-user-codes");
  }

  create(deviceHash: string, userCodeHash: string, record: DeviceCodeRecord, interval: number, keep: number) {
    return this.engine.write(() => {
      if (this.userCodes.has(userCodeHash)) return false;
      this.userCodes.put(userCodeHash, deviceHash, record.expiresAt);
      this.requests.put(deviceHash, { record, state: "pending", interval }, Date.now() + keep * 1000);
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
      keep({ record: entry.record, state: "taken", interval: entry.interval });
      return { kind: "approved", record: entry.record, approval: entry.approval! }; // set when approved
    });
  }
}
