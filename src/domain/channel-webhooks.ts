// Channel messages to an app's webhook, "when chosen" (docs/events.md#channel-messages): the app
// lists the channels (names, or prefixes ending in `*`) whose messages are also POSTed to its
// webhook URL, as `channel.message` events, through the durable queue that identity events use
// (domain/deliveries.ts sends them, signed the Standard Webhooks way).
import type { AppRecord, ChannelMessage, Delivery } from "../store/port.js";
import { message } from "../errors.js";
import { FormError } from "./accounts.js";
import { randomId } from "./secrets.js";

/** Most entries in an app's list of webhook channels. */
export const MAX_WEBHOOK_CHANNELS = 20;

/** A channel name (channel-names.ts), or a prefix of one followed by `*` (`*` alone: every channel). */
const ENTRY = /^(?:[A-Za-z0-9_:.-]{1,128}|[A-Za-z0-9_:.-]{0,127}\*)$/;

/**
 * The list as a person or the CLI typed it (entries separated by commas, spaces or lines): the
 * entries, each once, in order; [] for an empty text. A FormError names the rule otherwise.
 */
export function parseWebhookChannels(raw: string): string[] {
  const entries = [...new Set(raw.split(/[\s,]+/).filter((e) => e !== ""))];
  if (entries.length > MAX_WEBHOOK_CHANNELS || !entries.every((e) => ENTRY.test(e)))
    throw new FormError(message("err.webhookChannels", { max: MAX_WEBHOOK_CHANNELS }));
  return entries;
}

/** Whether the list chooses the channel: named exactly, or starting with a `*` entry's prefix. */
export function chosen(list: readonly string[], channel: string): boolean {
  return list.some((e) => (e.endsWith("*") ? channel.startsWith(e.slice(0, -1)) : e === channel));
}

/**
 * The deliveries of a publish for the app: one `channel.message` per message of a chosen channel,
 * when the app has a webhook URL. The body is Standard Webhooks' {type, timestamp, data}, `data`
 * the message as sockets get it ({channel, id, data, at}), built around the stored JSON text of
 * its data (not parsed again). It names no user (`sub` ""), so it is kept as it is, as the
 * channel's history keeps it.
 */
export function channelDeliveries(
  app: AppRecord | null,
  messages: readonly Omit<ChannelMessage, "id">[],
  ids: readonly string[],
  now: number,
): Delivery[] {
  const list = app?.webhookChannels;
  if (!app?.webhookUrl || !list?.length) return [];
  const out: Delivery[] = [];
  messages.forEach((m, i) => {
    if (!chosen(list, m.channel)) return;
    const at = JSON.stringify(m.at);
    const data = `{"channel":${JSON.stringify(m.channel)},"id":${JSON.stringify(ids[i])},"data":${m.data},"at":${at}}`;
    out.push({
      id: `msg_${randomId()}`,
      app: app.clientId,
      kind: "webhook",
      type: "channel.message",
      sub: "",
      body: `{"type":"channel.message","timestamp":${at},"data":${data}}`,
      attempts: 0,
      createdAt: now,
      dueAt: now,
    });
  });
  return out;
}
