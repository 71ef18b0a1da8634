// Channel names (docs/realtime.md#channels): 1 to 128 of A-Z a-z 0-9 _ : . - (no space, no "|").
import { invalidRequest } from "../errors.js";

const CHANNEL = /^[A-Za-z0-9_:.-]{1,128}$/;

export const isChannelName = (s: unknown): s is string => typeof s === "string" && CHANNEL.test(s);

/** The channel of a payload, or invalid_request. */
export function channelName(raw: unknown): string {
  if (raw === undefined || raw === null || raw === "") throw invalidRequest("err.required", { name: "channel" });
  if (!isChannelName(raw)) throw invalidRequest("err.channelName");
  return raw;
}
