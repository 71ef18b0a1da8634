// Device authorization (RFC 8628, docs/http-api.md#device-authorization): a pending request, found
// by its device code (what the device polls with) and by its user code (what the person types).
// The store holds only keyed hashes of both codes.

/** What the device asked for. */
export interface DeviceCodeRecord {
  clientId: string;
  /** The granted scopes of an OpenID Connect request; absent for a plain OAuth one (profile). */
  scope?: string[];
  /** When both codes stop working (ms since the epoch). */
  expiresAt: number;
}

/** Who allowed the device, and how they signed in (what the ID token says). */
export interface DeviceApproval {
  userId: string;
  authTime?: number;
  amr?: string[];
  /** The page session's public id (the ID token's sid). */
  sid?: string;
}

/** What one poll found (each answered at once, as one atomic step). */
export type DevicePoll =
  | { kind: "unknown" }
  | { kind: "expired" }
  /** Polled sooner than the interval after the last poll: the interval grew by 5 s (RFC 8628 §3.5). */
  | { kind: "slow_down"; interval: number }
  | { kind: "pending" }
  | { kind: "denied" }
  /** Already approved and taken by an earlier poll: single use. */
  | { kind: "taken" }
  /** Approved: taken now, by this poll only. */
  | { kind: "approved"; record: DeviceCodeRecord; approval: DeviceApproval };

export interface DeviceCodeStore {
  /**
   * Saves a new request: the user code works until record.expiresAt, the device code's record is
   * kept keepSeconds (longer, so that a late poll hears expired_token). False, and nothing
   * saved, when the user code is already in use (the caller draws another).
   */
  create(
    deviceHash: string,
    userCodeHash: string,
    record: DeviceCodeRecord,
    intervalSeconds: number,
    keepSeconds: number,
  ): Promise<boolean>;
  /** The live, still pending request a user code names, or null. */
  pending(userCodeHash: string): Promise<{ deviceHash: string; record: DeviceCodeRecord } | null>;
  /**
   * Approves (an approval) or denies (null) the request a user code names, atomically and only
   * while it is live and pending; the user code then works no more. Whether this call decided.
   */
  decide(userCodeHash: string, approval: DeviceApproval | null): Promise<boolean>;
  /**
   * One poll with the device code by the app at `now` (ms), atomically (DevicePoll). Another app's
   * poll is "unknown" and changes nothing.
   */
  poll(deviceHash: string, clientId: string, now: number): Promise<DevicePoll>;
  /** An account's deletion: the requests it approved that no poll took yet (they name it) are gone. */
  forgetUser(userId: string): Promise<void>;
  /** An app's deletion: its requests and their user codes are gone. */
  forgetApp(clientId: string): Promise<void>;
}
