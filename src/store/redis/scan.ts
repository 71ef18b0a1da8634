// Walking the keyspace, for what no index serves (a backup's listing, an admin's rare count): every
// master of a Cluster (or the one server), a SCAN page of matching keys at a time. Never on a
// request's path.
import { Cluster, type Redis } from "ioredis";
import { guarded } from "./guarded.js";
import type { RedisClient } from "./redis-client.js";

/** A glob pattern's special characters escaped: the pattern matches `s` literally. */
export const globEscape = (s: string) => s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

/** The servers that hold keys: a Cluster's masters, or the one server. */
export function masters(redis: RedisClient): Redis[] {
  return redis instanceof Cluster ? redis.nodes("master") : [redis as Redis];
}

/** The keys on one server that match `pattern` (a SCAN glob), a page at a time. */
export async function* keysOn(node: Redis, pattern: string): AsyncGenerator<string[]> {
  let cursor = "0";
  do {
    const [next, keys] = await guarded(() => node.scan(cursor, "MATCH", pattern, "COUNT", 1000));
    cursor = next;
    yield keys;
  } while (cursor !== "0");
}
