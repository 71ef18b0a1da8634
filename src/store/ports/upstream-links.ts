// ---- Upstream providers (docs/upstream-providers.md): which account an identity at another
// OpenID provider signs in to. One identity (issuer, subject) is linked to at most one account; an
// account may have several.

export interface UpstreamLinkRecord {
  /** The upstream's id in the settings (lower case): the button it came through. */
  upstream: string;
  /** The upstream's issuer (the ID token's iss) and the identity's sub there. */
  issuer: string;
  subject: string;
  userId: string;
  /** What the upstream said the identity's address is, when it said (shown on /account). */
  email?: string;
  /** ms since the epoch. */
  linkedAt: number;
}

export interface UpstreamLinkStore {
  /** Links the identity to the user; false (nothing written) when that identity is linked already. */
  link(link: UpstreamLinkRecord): Promise<boolean>;
  /** The link of an identity, or null. */
  byIdentity(issuer: string, subject: string): Promise<UpstreamLinkRecord | null>;
  /** The user's links, oldest first. */
  listForUser(userId: string): Promise<UpstreamLinkRecord[]>;
  /** Removes one of the user's links; false when the user has no such link (or no longer). */
  unlink(userId: string, issuer: string, subject: string): Promise<boolean>;
  /**
   * The ids of the users with a link through this upstream (its id), each once: a walk over every
   * link, for an admin's confirmation before removing the upstream, never a sign-in's path.
   */
  usersOf(upstream: string): Promise<string[]>;
  /**
   * Removes one of the user's links only while another link or a passkey of theirs remains, the
   * check and the removal one atomic step (two unlinks of an account's last two links sent at once
   * never both pass): "removed", "unknown" (no such link of the user's) or "last" (nothing changed).
   * What the caller uses for an account without a password (a password is never taken away).
   */
  unlinkUnlessLast(userId: string, issuer: string, subject: string): Promise<UnlessLast>;
  /** Removes every link of the user (account deletion); how many there were. */
  removeForUser(userId: string): Promise<number>;
}

/** What a removal that keeps an account's last way in did (UpstreamLinkStore.unlinkUnlessLast). */
export type UnlessLast = "removed" | "unknown" | "last";

/** One key for an identity: the issuer is a URL (no space), the sub any string. */
export const identityKey = (issuer: string, subject: string): string => `${issuer} ${subject}`;

/**
 * listForUser's order on every store: oldest first, and links made in the same millisecond by
 * issuer, then subject (Redis's hash would give them in the order written, LMDB's index by key).
 */
export function oldestFirst(a: UpstreamLinkRecord, b: UpstreamLinkRecord): number {
  return (
    a.linkedAt - b.linkedAt ||
    (a.issuer < b.issuer ? -1 : a.issuer > b.issuer ? 1 : 0) ||
    (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0)
  );
}
