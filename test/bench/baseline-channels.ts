// The floor of the channels bench (channels.ts), in its own process: what a team would build
// instead of Sigil's channels — bare Socket.IO with @socket.io/redis-adapter (Redis pub/sub, no
// history, no resuming, no auth), a room per channel. Several of these on one Redis play the nodes.
// Run as `node --import tsx test/bench/baseline-channels.ts` with PORT and REDIS_URL.
//   socket `subscribe` {channel} → joins the room, acks {"recovered": false}
//   POST /realtime/publish  {"channel", "data"} or an array of them → for each, in order,
//                           io.to(channel).emit("message", {channel, id, data, at});
//                           200 {"ids": [...]} (ids: "<ms>-<seq>" of this node, as Sigil's are)
//   GET /healthz   200 ok
import { createServer } from "node:http";
import { createAdapter } from "@socket.io/redis-adapter";
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
  if (req.method === "POST" && req.url === "/realtime/publish") {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const messages = (Array.isArray(body) ? body : [body]) as Array<{ channel?: unknown; data?: unknown }>;
      if (messages.some((m) => typeof m?.channel !== "string")) {
        res.writeHead(400).end();
        return;
      }
      const ids: string[] = [];
      for (const m of messages) {
        const id = `${Date.now()}-${seq++}`;
        ids.push(id);
        io.to(m.channel as string).emit("message", {
          channel: m.channel,
          id,
          data: m.data,
          at: new Date().toISOString(),
        });
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ids }));
    });
    return;
  }
  res.writeHead(404).end();
});
server.keepAliveTimeout = 65_000;

const io = new Server(server, {
  path: "/socket.io/",
  serveClient: false,
  adapter: createAdapter(redis, redis.duplicate()),
});
io.on("connection", (socket) => {
  socket.on("subscribe", (p: { channel?: unknown } | undefined, ack?: (r: object) => void) => {
    if (typeof p?.channel !== "string") return ack?.({ error: "invalid_request" });
    void socket.join(p.channel);
    ack?.({ recovered: false });
  });
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
