// The settings of identity events' deliveries (docs/events.md#delivery): webhooks and back-channel
// logout. Written once here; docs/settings.md's table is generated from it.
import { z } from "zod";
import { area, setting, wholeNumber } from "./setting.js";

export const identityEvents = area("identity-events", "range", {
  DELIVERY_TIMEOUT: wholeNumber("deliveryTimeout", 100, 30000, 5000, {
    meaning: "milliseconds a webhook or back-channel logout POST may take before it counts as failed (and is retried)",
  }),
  DELIVERY_RETRY_FOR: wholeNumber("deliveryRetryFor", 1, 604800, 86400, {
    meaning: "seconds after an event during which a failed delivery is retried; then it is given up",
    defaultNote: "(24 h)",
  }),
  DELIVERY_RETRY_BASE: wholeNumber("deliveryRetryBase", 10, 600000, 5000, {
    meaning:
      "milliseconds before the first retry; each next one waits twice as long, at most an hour, less up to half at random ([the schedule](events.md#delivery))",
  }),
  DELIVERY_POLL: wholeNumber("deliveryPoll", 10, 60000, 1000, {
    meaning:
      "milliseconds between two looks of a node at the delivery queue for what is due (a node that queues a delivery looks at once)",
  }),
  DELIVERY_ALLOW_PRIVATE: setting(
    "deliveryAllowPrivate",
    z
      .enum(["true", "false"], "must be true or false")
      .default("false")
      .transform((v) => v === "true"),
    {
      meaning:
        "send webhooks and logout tokens to addresses of loopback, private, link-local or other non-public networks (a URL naming one, or a name that resolves to one); without it such a delivery is not sent and the app's list says why — an app's URL must not reach this host's or its network's own services ([events.md](events.md#delivery))",
      values: "`true` (a machine of your own, tests), `false`",
    },
  ),
});
