// Every Redis key Sigil uses, in one place. All keys start with the configured prefix. A key's
// hash tag ({...}) is the part Redis Cluster hashes: keys that one operation touches together
// share a tag, so that they live on one shard.

export function keyspace(prefix: string) {
  return {
    /** String (JSON ChallengeRecord) with the challenge's TTL. */
    challenge: (key: string) => `${prefix}:ch:{${key}}`,
    /** Prefix for a limiter's counters; the limiter appends ":<id>". */
    limiter: (name: string) => `${prefix}:rl:${name}`,
    /** Hash: CUSTOM TOKEN id → JSON record, one per app. */
    customTokens: (app: string) => `${prefix}:ct:{${app}}`,
    /** Stream: the app's solve events (history for replay). */
    events: (app: string) => `${prefix}:ev:{${app}}`,
    /** String: the newest event id trimmed from the app's history (replay is complete after it). */
    eventsCut: (app: string) => `${prefix}:ev:{${app}}:cut`,
    /** Pub/sub channel (not a key): new events and revocations, to every node. */
    feed: `${prefix}:feed`,
  };
}

export type Keyspace = ReturnType<typeof keyspace>;
