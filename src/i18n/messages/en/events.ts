// English, part 5: identity events (docs/events.md): the developers console's webhook and
// back-channel logout settings and its deliveries list.
export const events = {
  "err.webhookUrlProblem": "Webhook URL: {problem}",
  "err.backchannelLogoutProblem": "Back-channel logout URL: {problem}",
  "err.webhookChannels": "Webhook channels: each is a channel name, or a prefix ending in * (\"orders:*\"; \"*\" for every channel); at most {max}.",
  "dev.events": "Identity events",
  "dev.eventsLead": "Tell the app when one of its users withdraws consent, signs out, or is disabled or deleted.",
  "dev.webhookUrl": "Webhook URL",
  "dev.webhookUrlHint": "Optional: the events are POSTed here, signed the Standard Webhooks way. Empty: none.",
  "dev.newWebhookSecret": "Make a new signing secret",
  "dev.webhookChannels": "Channels sent to the webhook",
  "dev.webhookChannelsHint":
    "Optional: messages published to these channels are also POSTed to the webhook, as channel.message events. Names, or prefixes ending in *, separated by commas. Empty: none.",
  "dev.backchannelLogout": "Back-channel logout URL",
  "dev.backchannelLogoutHint":
    "Optional: OpenID Connect Back-Channel Logout tokens are POSTed here when a user's session ends.",
  "dev.eventsSubmit": "Save event settings",
  "dev.eventsSaved": "Saved the event settings of {app}.",
  "dev.webhookSecret": "Copy the webhook signing secret now: it is not shown again.",
  "dev.deliveries": "Recent deliveries",
  "dev.noDeliveries": "Nothing sent yet.",
  "dev.deliveryWhen": "When",
  "dev.deliveryEvent": "Event",
  "dev.deliveryTo": "To",
  "dev.deliveryAttempt": "Attempt",
  "dev.deliveryAnswer": "Answer",
  "dev.deliveryOutcome": "Result",
  "dev.outcomeDelivered": "delivered",
  "dev.outcomeRetrying": "will be retried",
  "dev.outcomeFailed": "given up",
  "dev.kindWebhook": "webhook",
  "dev.kindBackchannel": "back-channel logout",
} as const;
