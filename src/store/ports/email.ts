// ---- Email (docs/http-api.md#email-and-password-recovery): single-use links sent by mail, and
// the index of users by email address (for /forgot).

/** What a link sent by mail stands for, stored under the hash of its token. */
export interface MailLinkRecord {
  kind: "confirm-email" | "reset-password";
  userId: string;
  /** confirm-email: the address it confirms (a link for an address changed since does nothing). */
  email?: string;
  /** reset-password: a keyed hash of the password hash when it was sent (a changed password ends the link). */
  stamp?: string;
}

export interface EmailStore {
  /**
   * Stores a link's record under the hash of its token for ttlSeconds, and notes it among the
   * links of its user (removeLinksForUser).
   */
  saveLink(tokenHash: string, record: MailLinkRecord, ttlSeconds: number): Promise<void>;
  /** Account deletion: removes every link of the user still stored (used, expired or not). */
  removeLinksForUser(userId: string): Promise<void>;
  /** The link's record, left in place (the reset form is shown before it is used), or null. */
  peekLink(tokenHash: string): Promise<MailLinkRecord | null>;
  /**
   * Takes the link for its one use, atomically: any number of concurrent calls with one token get
   * the record exactly once; the others (and every later call) get null.
   */
  takeLink(tokenHash: string): Promise<MailLinkRecord | null>;
  /** Adds the user to the users of this (normalised) address. Idempotent. */
  indexEmail(email: string, userId: string): Promise<void>;
  /** Removes the user from the users of this address. Idempotent. */
  unindexEmail(email: string, userId: string): Promise<void>;
  /** The ids of the users indexed under this address (callers check each user's record). */
  usersByEmail(email: string): Promise<string[]>;
}
