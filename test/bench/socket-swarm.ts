// A client process for the realtime benchmarks: opens many socket.io-client sockets (websocket
// transport, one connection each) on command, and holds them idle until told to close. Driven over
// IPC by realtime.ts: it says {type:"up"}; gets {type:"go", url, token?, count, concurrency};
// answers {type:"done", connected, failed, ms, times} (handshake times in ms, per socket); gets
// {type:"close"}, disconnects everything and exits. With `record: true` in "go", the sockets note
// when each `challenge:result` arrives (epoch ms, high resolution, by event key); {type:"report"}
// is answered with {type:"events", byKey: {key: [ms, …]}} and the notes are cleared (fanout.ts).
// With `label: "…"` in "go", the sockets count every `challenge:result` they get under that label
// (no times kept: cheap at 100,000 deliveries/s); {type:"count"} is answered with
// {type:"counts", counts: {label: n}} (owned.ts checks that every solve reached every socket).
// With `channels: [...]` in "go" (channels.ts), each socket subscribes to every channel once
// connected and counts as connected when every `subscribe` has acked without an error; then the
// `message` events are what `record` times (by `data.k`) and `label` counts.
import { performance } from "node:perf_hooks";
import { io, type Socket } from "socket.io-client";

interface Go {
  type: "go";
  url: string;
  token?: string;
  count: number;
  concurrency: number;
  record?: boolean;
  label?: string;
  channels?: string[];
}

const counts: Record<string, number> = {};

let arrivals = new Map<string, number[]>();
const note = (key: string) => {
  const t = performance.timeOrigin + performance.now();
  const list = arrivals.get(key);
  if (list) list.push(t);
  else arrivals.set(key, [t]);
};
const onResult = (e: { key: string }) => note(e.key);
const onMessage = (m: { data?: { k?: string } }) => note(String(m.data?.k));

const sockets: Socket[] = [];
const send = (m: object) => process.send!(m);

function burst(go: Go): void {
  const started = performance.now();
  const times: number[] = [];
  let launched = 0;
  let connected = 0;
  let failed = 0;
  const settle = () => {
    if (connected + failed === go.count) {
      send({ type: "done", connected, failed, ms: performance.now() - started, times });
      return;
    }
    launch();
  };
  const launch = () => {
    while (launched < go.count && launched - connected - failed < go.concurrency) {
      launched++;
      const t0 = performance.now();
      const s = io(go.url, {
        path: "/socket.io/",
        transports: ["websocket"],
        forceNew: true,
        reconnection: false,
        timeout: 20_000,
        ...(go.token ? { auth: { token: go.token } } : {}),
      });
      sockets.push(s);
      const event = go.channels ? "message" : "challenge:result";
      if (go.record) s.on(event, go.channels ? onMessage : onResult);
      const label = go.label;
      if (label !== undefined) {
        counts[label] ??= 0;
        s.on(event, () => counts[label]!++);
      }
      s.once("connect", () => {
        times.push(performance.now() - t0);
        if (!go.channels) {
          connected++;
          return settle();
        }
        void Promise.all(
          go.channels.map((channel) => s.timeout(60_000).emitWithAck("subscribe", { channel }) as Promise<object>),
        ).then(
          (acks) => {
            if (acks.some((a) => "error" in a)) failed++;
            else connected++;
            settle();
          },
          () => {
            failed++;
            settle();
          },
        );
      });
      s.once("connect_error", () => {
        failed++;
        settle();
      });
    }
  };
  launch();
}

process.on("message", (m: { type: string }) => {
  if (m.type === "go") burst(m as Go);
  if (m.type === "report") {
    send({ type: "events", byKey: Object.fromEntries(arrivals) });
    arrivals = new Map();
  }
  if (m.type === "count") send({ type: "counts", counts });
  if (m.type === "drop") {
    // Disconnects every socket but stays up (warm) for the next "go"; answers {type:"dropped"}.
    for (const s of sockets.splice(0)) s.disconnect();
    send({ type: "dropped" });
  }
  if (m.type === "close") {
    for (const s of sockets) s.disconnect();
    setTimeout(() => process.exit(0), 200);
  }
});
process.on("disconnect", () => process.exit(0));
send({ type: "up" });
