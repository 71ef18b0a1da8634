// The client's address, for rate limits and logs: proxy-addr with the configured trust
// (TRUST_PROXY, docs/settings.md). One function for the express handlers (express's req.ip uses the
// same trust function: http/app.ts sets it), the fast path (http/hot-routes.ts) and the Socket.IO
// handshake (realtime/), so that one client is one address whichever way it comes in.
import type { IncomingMessage } from "node:http";
import proxyaddr from "proxy-addr";
import type { Config } from "../config.js";

/** Whether to believe the hop at `addr`, `i` hops from the socket (proxy-addr's trust function). */
export type Trust = (addr: string, i: number) => boolean;

/**
 * TRUST_PROXY as a trust function, read as express reads its "trust proxy" setting: true trusts
 * every hop, a number that many hops, a string a comma-separated list of addresses, subnets or
 * names (loopback, linklocal, uniquelocal); false none. A malformed list throws here, at start.
 */
export function compileTrust(value: Config["trustProxy"]): Trust {
  if (value === true) return () => true;
  if (value === false) return proxyaddr.compile([]);
  if (typeof value === "number") return (_addr, i) => i < value;
  return proxyaddr.compile(value.split(",").map((v) => v.trim()));
}

/** The address of a request's client under TRUST_PROXY ("unknown" when the socket has none). */
export function clientAddressOf(trustProxy: Config["trustProxy"]): (req: IncomingMessage) => string {
  // Trusting no proxy, proxy-addr answers the socket's address: read it without parsing headers.
  if (trustProxy === false) return (req) => req.socket.remoteAddress ?? "unknown";
  const trust = compileTrust(trustProxy);
  return (req) => proxyaddr(req, trust) ?? "unknown";
}
