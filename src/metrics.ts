// Prometheus metrics (prom-client), one registry per server so that several nodes can live in
// one process (tests) without sharing counters.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<"method" | "route" | "status">;
  httpDuration: Histogram<"method" | "route">;
  /** Authenticated channel sockets on this node (set by realtime/). */
  channelSockets: Gauge;
  channelConnections: Counter;
}

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: "sigil_http_requests_total",
      help: "HTTP requests answered, by route and status",
      labelNames: ["method", "route", "status"],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: "sigil_http_request_duration_seconds",
      help: "HTTP request latency, by route",
      labelNames: ["method", "route"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    channelSockets: new Gauge({
      name: "sigil_channel_sockets",
      help: "Authenticated realtime sockets connected to this node",
      registers: [registry],
    }),
    channelConnections: new Counter({
      name: "sigil_channel_connections_total",
      help: "Realtime sockets accepted by this node",
      registers: [registry],
    }),
  };
}
