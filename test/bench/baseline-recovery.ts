// The peer for the realtime benchmarks, in its own process: what a team would build instead of
// Sigil's channel — Socket.IO with `connectionStateRecovery` on `@socket.io/redis-streams-adapter`
// (every broadcast goes through a Redis Stream that every node reads; a client that reconnects
// sends its session id and the offset of the last packet it got, and the server replays from the
// stream what it missed, when it still has the session). Two of these on one Redis play the two
// nodes. Sockets join the room "app" when they connect (not again when their session is restored:
// rooms come back with it); POST /publish on any node broadcasts one event to the room, as Sigil
// broadcasts a solve's result to the app's sockets on every node.
// Run as `node --import tsx test/bench/baseline-recovery.ts` with PORT and REDIS_URL (and ADAPTER, below).
//   POST /publish  header key → io.to("app").emit("challenge:result", {id, key, correct, at}); 200 {"correct":false,"id"}
//                  (id: "<ms>-<seq>" of this node, increasing, as Sigil's event ids are)
//   GET /healthz   200 ok
import { createServer } from "node:http";
import { createAdapter as createRedisAdapter } from "@socket.io/redis-adapter";
import { createAdapter } from "@socket.io/redis-streams-adapter";
import { Redis } from "ioredis";
import { Server } from "socket.io";

const env = process.env;
const port = Number(env.PORT ?? 3000);

const redis = new Redis(env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: 1 });
redis.on("error", () => {});

let seq = 0;
const server = createServer((req, res) => {
  if (req.url === "/healthz") {
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    return;
  }
  if (req.method === "POST" && req.url === "/publish") {
    const key = String(req.headers.key ?? "");
    req.resume();
    const id = `${Date.now()}-${seq++}`;
    io.to("app").emit("challenge:result", { id, key, correct: false, at: new Date().toISOString() });
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ correct: false, id }));
    return;
  }
  res.writeHead(404).end();
});
server.keepAliveTimeout = 65_000;

// ADAPTER=redis: the fan-out floor instead (fanout.ts) — bare Socket.IO with @socket.io/redis-adapter
// (Redis pub/sub, no recovery), broadcasting to the room the same way.
const io =
  env.ADAPTER === "redis"
    ? new Server(server, {
        path: "/socket.io/",
        serveClient: false,
        adapter: createRedisAdapter(redis, redis.duplicate()),
      })
    : new Server(server, {
        path: "/socket.io/",
        serveClient: false,
        adapter: createAdapter(redis),
        // Socket.IO's documented settings: sessions kept 2 minutes, restored without the middlewares.
        connectionStateRecovery: { maxDisconnectionDuration: 2 * 60 * 1000, skipMiddlewares: true },
      });
io.on("connection", (socket) => {
  if (!socket.recovered) void socket.join("app");
});

server.listen(port, "127.0.0.1");

const stop = () => {
  io.close();
  redis.disconnect();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
