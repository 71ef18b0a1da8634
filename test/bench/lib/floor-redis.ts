// The floors' Redis client (baseline-challenges.ts, baseline-client-credentials.ts): the same
// client options as Sigil's request-path client (src/store/redis/redis-client.ts), so that a floor
// differs from Sigil in what it sends, not in how; and how a floor serves until SIGTERM.
import type { Server } from "node:http";
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

/** Listens on PORT (3001) of loopback; on SIGTERM closes the server and the client, and exits. */
export function serveUntilTerm(server: Server, redis: Redis): void {
  server.listen(Number(process.env.PORT ?? 3001), "127.0.0.1");
  process.on("SIGTERM", () => {
    server.close(() => {
      redis.disconnect();
      process.exit(0);
    });
    server.closeAllConnections();
  });
}
