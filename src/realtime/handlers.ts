// Client → server events (docs/realtime.md#acknowledgements): challenge:new and challenge:solve, each answered through
// its acknowledgement; a bad payload or a failure acks the error object (docs/errors.md), never a crash.
import type { Challenges } from "../domain/challenges.js";
import { rateLimited, toSigilError } from "../errors.js";
import type { Logger } from "../log.js";
import type { ChannelSocket } from "./types.js";

type Reply = (body: unknown) => void;

/** (payload, ack) as sent, whatever the client put there. */
function args(raw: unknown[]): { payload: Record<string, unknown> | undefined; reply: Reply } {
  const last = raw[raw.length - 1];
  const reply: Reply = typeof last === "function" ? (last as Reply) : () => {};
  const p = raw[0];
  const payload = p !== null && typeof p === "object" && !Array.isArray(p) ? (p as Record<string, unknown>) : undefined;
  return { payload, reply };
}

/**
 * address: the client's address for the attempt limits, read from the handshake as HTTP reads
 * it (honouring TRUST_PROXY), so that socket and HTTP attempts from one client count together.
 */
export function registerHandlers(
  socket: ChannelSocket,
  challenges: Challenges,
  logger: Logger,
  ratePerSecond: number,
  address: string,
) {
  // Per-socket token bucket over every client → server event.
  let tokens = ratePerSecond;
  let refilled = Date.now();
  socket.use((packet, next) => {
    const now = Date.now();
    tokens = Math.min(ratePerSecond, tokens + ((now - refilled) / 1000) * ratePerSecond);
    refilled = now;
    if (tokens >= 1) {
      tokens -= 1;
      next();
      return;
    }
    const { reply } = args(packet.slice(1));
    reply(rateLimited(1, "Too many events on this connection; slow down.").toBody());
  });

  const handle =
    (name: string, fn: (payload: Record<string, unknown> | undefined) => Promise<unknown>) =>
    async (...raw: unknown[]) => {
      const { payload, reply } = args(raw);
      try {
        reply(await fn(payload));
      } catch (err) {
        const e = toSigilError(err);
        if (e.status >= 500 && e.code !== "unavailable") logger.error({ err, event: name }, "socket event failed");
        reply(e.toBody());
      }
    };

  const { app } = socket.data;
  socket.on(
    "challenge:new",
    handle("challenge:new", (p) => challenges.newChallenge(p ?? {}, async () => app)),
  );
  socket.on(
    "challenge:solve",
    handle("challenge:solve", (p) => challenges.solveChallenge(p ?? {}, address)),
  );
}
