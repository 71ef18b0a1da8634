// ---- Upstream providers added on /admin (docs/upstream-providers.md#on-admin): the "Continue
// with …" providers an admin manages, beside those the settings name. The client secret is sealed
// under SECRET by the domain (domain/upstream-providers.ts) before it reaches the store. Few and
// small: every store keeps them in one place, read whole.

export interface StoredUpstreamRecord {
  /** Lower case letters and digits: the path of its callback, {auth_url}/upstream/<id>/callback. */
  id: string;
  kind: "oidc" | "github";
  name: string;
  issuer: string;
  /** github: its REST API. */
  apiUrl?: string;
  clientId: string;
  /** The client secret, sealed under SECRET (domain/seal.ts), bound to the id. */
  sealedSecret: string;
  /** ms since the epoch. */
  createdAt: number;
  updatedAt: number;
}

export interface UpstreamProviderStore {
  /** Stores a new provider; false, and nothing changed, when the id is taken (of calls made at once, one adds). */
  add(record: StoredUpstreamRecord): Promise<boolean>;
  /** Replaces a provider's record; false, and nothing written, when there is none of that id. */
  update(record: StoredUpstreamRecord): Promise<boolean>;
  /** Removes a provider; the removed record, or null when there was none. */
  remove(id: string): Promise<StoredUpstreamRecord | null>;
  get(id: string): Promise<StoredUpstreamRecord | null>;
  /** Every provider, by id. */
  list(): Promise<StoredUpstreamRecord[]>;
}
