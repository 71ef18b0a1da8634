// Presence on the socket side (docs/realtime.md#presence): who a socket counts as, and the room of
// a channel's `presence: true` subscriptions on this node, where `join` and `leave` are sent.
import { memberOfKey, type Member } from "../domain/presence.js";
import type { FeedMessage } from "../store/port.js";
import { channelKey } from "./registry.js";
import type { Session } from "./session.js";
import type { ChannelServer } from "./types.js";

/**
 * The member a socket counts as: a user's socket is its user (`sub`, from who the session says it
 * is — never from `tokenId`, which for such a socket names its access token's hash); an app's
 * CUSTOM TOKEN socket is that token's id.
 */
export function memberOf(session: Session): Member {
  const { who } = session;
  return who.kind === "user" ? { sub: who.sub } : { token: who.tokenId };
}

/** The Socket.IO room of a channel's presence subscriptions on this node. */
export const presenceRoom = (app: string, channel: string): string => `${channelKey(app, channel)}\u0000presence`;

/**
 * Sends a member's join or leave (from the feed) to this node's presence subscriptions of the
 * channel. Every node hears every join and leave: one without such a subscription stops at a map
 * lookup (a broadcast would encode the packet first, even for an empty room).
 */
export function tellPresence(io: ChannelServer, m: Extract<FeedMessage, { type: "presence" }>): void {
  const room = presenceRoom(m.app, m.channel);
  const id = memberOfKey(m.member);
  if (!id || !io.of("/").adapter.rooms.has(room)) return;
  io.local.to(room).emit(m.joined ? "join" : "leave", { channel: m.channel, ...id });
}
