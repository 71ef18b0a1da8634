// Who a socket of the channel is (its Session's `who` and `user`): an app's CUSTOM TOKEN (its
// servers), or a user of an app (a signed-in page, docs/realtime.md#users-sockets).
import type { UserIdentity } from "../domain/user-access.js";
import type { EndedEvent } from "../protocol.js";

/** Who a socket is: an app's CUSTOM TOKEN, or a user of an app (presence names members by it). */
export type Who = { kind: "token"; app: string; tokenId: string } | { kind: "user"; app: string; sub: string };

/**
 * A user's socket as verified (domain/user-access.ts), and the node's count of access changes when
 * its handshake began (realtime/access-checks.ts: one heard since then is checked again).
 */
export type VerifiedUser = UserIdentity & { seq: number };

/** Why the server ended a socket: its token expired, or it was revoked (or its user's access ended). */
export type EndReason = EndedEvent["reason"];
