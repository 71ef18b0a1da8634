// The extra Redis connections of the realtime channel: the Socket.IO adapter's publisher and its
// own subscriber, and a subscriber for the feed. Unlike the request-path client these queue
// commands while Redis is away (failFast: false), so a subscription survives an outage.
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import type { OpenedStore } from "./index.js";
import { MemoryStore } from "./memory.js";
import { MemoryFeed } from "./memory/realtime.js";
import type { Feed } from "./realtime-port.js";
import { createRedisClient, type RedisClient } from "./redis-client.js";
import { RedisFeed, } from "./redis/realtime.js";
import { RedisStore } from "./redis.js";

export interface RealtimeClients {
  feed: Feed;
  /** Clients for @socket.io/redis-adapter; absent on the embedded store. */
  adapter?: { pub: RedisClient; sub: RedisClient };
  close(): Promise<void>;
}

export async function openRealtimeClients(config: Config, logger: Logger, opened: OpenedStore): Promise<RealtimeClients> {
  const store = opened.store;
  if (store instanceof MemoryStore) {
    const feed = new MemoryFeed(store.bus);
    return { feed, close: () => feed.close() };
  }
  if (!(store instanceof RedisStore) || config.redisUrl === undefined) throw new Error("unknown store kind");
  let last = 0;
  const onError = (err: Error) => {
    if (Date.now() - last < 5000) return;
    last = Date.now();
    logger.error({ err: { message: err.message } }, "redis (realtime): connection error");
  };
  const sharded = config.redisAdapter === "sharded";
  const pub = createRedisClient(config.redisUrl, { failFast: false, onError });
  const sub = createRedisClient(config.redisUrl, { failFast: false, onError, shardedSubscribers: sharded });
  const feedSub = createRedisClient(config.redisUrl, { failFast: false, onError });
  const clients = [pub, sub, feedSub];
  const feed = new RedisFeed(feedSub, store.keys);
  return {
    feed,
    adapter: { pub, sub },
    async close() {
      await feed.close();
      for (const c of clients) c.disconnect();
    },
  };
}
