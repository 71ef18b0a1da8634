// The floor for the realtime benchmarks, in its own process: a bare Socket.IO server (no auth, the
// default adapter) and the least work a cross-node solve result can do — an HTTP request on one
// process PUBLISHes to Redis, every process SUBSCRIBEd to the channel emits the message to its
// sockets. Two of these play nodes B and A for the latency floor; one alone is the bare server for
// the memory-per-socket and connections-per-second baselines.
// Run as `node --import tsx test/bench/baseline-realtime.ts` with PORT and REDIS_URL.
//   POST /publish  header key → PUBLISH <channel> {id, key, correct, at}; 200 {"correct":false}
import { createServer } from "node:http";
import { Redis } from "ioredis";
import { Server } from "socket.io";

const env = process.env;
const port = Number(env.PORT ?? 3000);
const CHANNEL = "bench-floor:events";

const pub = new Redis(env.REDIS_URL ?? "redis://127.0.0.1:6379", {
  enableAutoPipelining: true,
  maxRetriesPerRequest: 1,
});
const sub = pub.duplicate();
pub.on("error", () => {});
sub.on("error", () => {});

let seq = 0;
const server = createServer((req, res) => {
  if (req.url === "/healthz") {
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    return;
  }
  if (req.method === "POST" && req.url === "/publish") {
    const key = String(req.headers.key ?? "");
    req.resume();
    const event = { id: `${Date.now()}-${seq++}`, key, correct: false, at: new Date().toISOString() };
    pub.publish(CHANNEL, JSON.stringify(event)).then(
      () => res.writeHead(200, { "content-type": "application/json" }).end('{"correct":false}'),
      () => res.writeHead(503).end(),
    );
    return;
  }
  res.writeHead(404).end();
});
server.keepAliveTimeout = 65_000;

const io = new Server(server, { path: "/socket.io/", serveClient: false });
sub.on("message", (_channel: string, message: string) => {
  io.emit("challenge:result", JSON.parse(message));
});

sub.subscribe(CHANNEL).then(() => server.listen(port, "127.0.0.1"));

const stop = () => {
  io.close();
  pub.disconnect();
  sub.disconnect();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
