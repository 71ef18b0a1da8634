// Handshake authentication (docs/realtime.md#connecting): a CUSTOM TOKEN from `auth.token` or the Authorization
// header, or a user's access token from `auth.access_token` (docs/realtime.md#users-sockets); refusals reach the
// client as connect_error with message = error code, data = the error object (docs/errors.md).
import { bearerToken } from "../domain/custom-tokens.js";
import type { UserIdentity } from "../domain/user-access.js";
import { logFailure, unavailable } from "../errors.js";
import type { Logger } from "../log.js";
import { isEventId } from "../store/port.js";
import { nextInOneFlush } from "./one-flush.js";
import { Session, type SessionContext } from "./session.js";
import type { ChannelSocket } from "./types.js";
import type { VerifiedTokens } from "./verified-tokens.js";

/** What `socket.handshake.auth` is once read: the token is not kept in memory past the handshake. */
const READ: Record<string, never> = Object.freeze({});

/** How a handshake checks a user's access token (domain/user-access.ts, realtime/access-checks.ts). */
export interface UserHandshakes {
  verify(token: unknown): Promise<UserIdentity>;
  /** The count of access changes heard, noted before verifying. */
  mark(): number;
}

export function handshakeAuth(
  tokens: VerifiedTokens,
  users: UserHandshakes,
  ctx: SessionContext,
  logger: Logger,
  isDraining: () => boolean,
) {
  return async (socket: ChannelSocket, next: (err?: Error) => void) => {
    try {
      if (isDraining()) throw unavailable();
      const auth = (socket.handshake.auth ?? {}) as Record<string, unknown>;
      const header = socket.handshake.headers.authorization;
      const token =
        auth.token !== undefined ? auth.token : bearerToken(typeof header === "string" ? header : undefined);
      const since = isEventId(auth.since) ? auth.since : undefined;
      const accessToken = auth.token === undefined ? auth.access_token : undefined;
      socket.handshake.auth = READ;
      if (accessToken !== undefined) {
        const seq = users.mark();
        socket.data = new Session({ ...(await users.verify(accessToken)), seq }, undefined, ctx);
      } else socket.data = new Session(await tokens.verify(token), since, ctx);
      nextInOneFlush(socket, next);
    } catch (err) {
      const e = logFailure(err, logger, { reqId: socket.id, event: "handshake" });
      next(Object.assign(new Error(e.code), { data: e.toBody() }));
    }
  };
}
