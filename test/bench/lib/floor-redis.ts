// The floors' Redis client (baseline-challenges.ts, baseline-client-credentials.ts): the same
// client options as Sigil's request-path client (src/store/redis/redis-client.ts), so that a floor
// differs from Sigil in what it sends, not in how.
import { Redis } from "ioredis";

export function floorRedis(): Redis {
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
    connectTimeout: 2000,
    enableAutoPipelining: true,
  });
  redis.on("error", () => {});
  return redis;
}
