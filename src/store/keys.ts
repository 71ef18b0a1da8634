// Every Redis key Sigil uses, in one place. All keys start with the configured prefix. A key's
// hash tag ({...}) is the part Redis Cluster hashes: keys that one operation touches together
// share a tag, so that they live on one shard.

export function keyspace(prefix: string) {
  return {
    /** String (JSON ChallengeRecord) with the challenge's TTL. */
    challenge: (key: string) => `${prefix}:ch:{${key}}`,
    /** Prefix for a limiter's counters; the limiter appends ":<id>". */
    limiter: (name: string) => `${prefix}:rl:${name}`,
  };
}

export type Keyspace = ReturnType<typeof keyspace>;
