// Handshake authentication (docs/realtime.md#connecting): a CUSTOM TOKEN from `auth.token` or the Authorization
// header; refusals reach the client as connect_error with message = error code, data = the error object (docs/errors.md).
import type { CustomTokens } from "../domain/custom-tokens.js";
import { bearerToken } from "../domain/custom-tokens.js";
import { toSigilError, unavailable } from "../errors.js";
import type { Logger } from "../log.js";
import { isEventId } from "../store/port.js";
import type { ChannelSocket } from "./types.js";

export function handshakeAuth(tokens: CustomTokens, logger: Logger, isDraining: () => boolean) {
  return async (socket: ChannelSocket, next: (err?: Error) => void) => {
    try {
      if (isDraining()) throw unavailable();
      const auth = (socket.handshake.auth ?? {}) as Record<string, unknown>;
      const header = socket.handshake.headers.authorization;
      const token =
        auth.token !== undefined ? auth.token : bearerToken(typeof header === "string" ? header : undefined);
      const who = await tokens.verify(token);
      socket.data = {
        app: who.app,
        tokenId: who.tokenId,
        ...(who.expiresAt !== undefined ? { expiresAt: who.expiresAt } : {}),
        ...(isEventId(auth.since) ? { since: auth.since } : {}),
      };
      next();
    } catch (err) {
      const e = toSigilError(err);
      if (e.status >= 500 && e.code !== "unavailable") logger.error({ err }, "handshake failed");
      next(Object.assign(new Error(e.code), { data: e.toBody() }));
    }
  };
}
