// ---- Invitations (SIGNUP=invite, docs/pages.md#invitations): single-use sign-up links an admin
// makes. Only the hash of a link's token is stored; the link itself is shown once.

export interface InvitationRecord {
  /** A random id naming the invitation on the admin page (revoke); never the token or its hash. */
  id: string;
  /** The keyed hash of the link's token. */
  tokenHash: string;
  /** The email address the invitation is for (normalised), when bound to one. */
  email?: string;
  /** The id of the admin (or "operator", the CLI) who made it. */
  createdBy: string;
  createdAt: number;
  /** When the link ends (ms since the epoch). */
  expiresAt: number;
}

export interface InvitationStore {
  /** Stores a new invitation (it ends by itself at expiresAt). */
  save(record: InvitationRecord): Promise<void>;
  /** The invitations not yet used, revoked or ended, oldest first. */
  list(): Promise<InvitationRecord[]>;
  /** The invitation of this token hash, left in place, or null. */
  peek(tokenHash: string): Promise<InvitationRecord | null>;
  /**
   * Takes the invitation for its one use, atomically: any number of concurrent calls with one
   * token get the record exactly once; the others (and every later call) get null.
   */
  take(tokenHash: string): Promise<InvitationRecord | null>;
  /** Removes the invitation of this id; the removed record, or null when there was none. */
  revoke(id: string): Promise<InvitationRecord | null>;
}
