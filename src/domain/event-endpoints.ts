// Where an app hears about its users (docs/events.md#registering): a webhook URL, with its signing
// secret, and an OpenID Connect Back-Channel Logout URI. Both are checked as redirect URLs are
// (https, or http on loopback; no fragment, no user name or password). The webhook secret is made
// here, shown once, and kept sealed under SECRET (it must be read back to sign each delivery). The
// channels whose messages also go to the webhook are listed here too (domain/channel-webhooks.ts).
import { randomBytes } from "node:crypto";
import type { AppRecord, DeliveryAttempt, Store } from "../store/port.js";
import { message } from "../errors.js";
import { FormError } from "./accounts.js";
import { redirectUriProblem } from "./redirect-uris.js";
import { parseWebhookChannels } from "./channel-webhooks.js";
import { seal, sealingKey, unseal } from "./seal.js";

/** Standard Webhooks' prefix of a secret: the base64 key follows it. */
export const WEBHOOK_SECRET_PREFIX = "whsec_";

export interface EndpointChanges {
  /** A URL sets it (and makes a new secret); "" clears it (and its secret); absent: unchanged. */
  webhookUrl?: string | undefined;
  /** A URL sets it; "" clears it; absent: unchanged. */
  backchannelLogoutUri?: string | undefined;
  /** A new secret for the webhook URL that stays (the page's "new secret" box). */
  newWebhookSecret?: boolean | undefined;
  /** The channels sent to the webhook, as typed (parseWebhookChannels); "" clears; absent: unchanged. */
  webhookChannels?: string | undefined;
}

export class EventEndpoints {
  private readonly key: Buffer;
  constructor(
    private readonly store: Store,
    secret: string,
  ) {
    this.key = sealingKey(secret, "sigil webhook secret");
  }

  /** A URL as a person typed it: undefined when empty, else checked (a FormError names the field). */
  static check(raw: string, field: "webhook" | "backchannel"): string | undefined {
    const url = raw.trim();
    if (url === "") return undefined;
    const problem = redirectUriProblem(url);
    if (!problem) return url;
    throw new FormError(
      field === "webhook"
        ? message("err.webhookUrlProblem", { problem })
        : message("err.backchannelLogoutProblem", { problem }),
    );
  }

  /**
   * Sets or clears the app's endpoints (those given). A webhook URL that is set gets a new secret,
   * returned this once (`whsec_` and 32 random bytes in base64, as Standard Webhooks has them); a
   * refused value changes nothing. The app as stored, and the new secret if one was made.
   */
  async set(app: AppRecord, changes: EndpointChanges): Promise<{ app: AppRecord; webhookSecret?: string }> {
    const webhook = changes.webhookUrl === undefined ? undefined : EventEndpoints.check(changes.webhookUrl, "webhook");
    const backchannel =
      changes.backchannelLogoutUri === undefined
        ? undefined
        : EventEndpoints.check(changes.backchannelLogoutUri, "backchannel");
    const channels = changes.webhookChannels === undefined ? undefined : parseWebhookChannels(changes.webhookChannels);
    const makeSecret = webhook !== undefined || (changes.webhookUrl === undefined && changes.newWebhookSecret === true);
    const secret = makeSecret ? WEBHOOK_SECRET_PREFIX + randomBytes(32).toString("base64") : undefined;
    let webhookSecret: string | undefined;
    // Applied to the record as stored (AppStore.update): a change made meanwhile is kept.
    const stored = await this.store.apps.update(app.clientId, (next) => {
      webhookSecret = undefined;
      if (changes.webhookUrl !== undefined) {
        delete next.webhookUrl;
        delete next.webhookSecretSealed;
        if (webhook !== undefined) next.webhookUrl = webhook;
      }
      if (next.webhookUrl !== undefined && secret !== undefined) {
        webhookSecret = secret;
        next.webhookSecretSealed = seal(this.key, secret, app.clientId);
      }
      if (changes.backchannelLogoutUri !== undefined) {
        delete next.backchannelLogoutUri;
        if (backchannel !== undefined) next.backchannelLogoutUri = backchannel;
      }
      // Kept when the webhook URL is cleared: they apply again once a URL is set.
      if (channels !== undefined) {
        delete next.webhookChannels;
        if (channels.length > 0) next.webhookChannels = channels;
      }
      return next;
    });
    const result = stored ?? app;
    return webhookSecret === undefined ? { app: result } : { app: result, webhookSecret };
  }

  /** The last attempts to deliver to the app's URLs, newest first (the list on /developers). */
  recent(app: AppRecord): Promise<DeliveryAttempt[]> {
    return this.store.deliveries.recent(app.clientId);
  }

  /** The app's webhook secret (`whsec_…`), or null: none, or not sealed under this SECRET. */
  webhookSecret(app: AppRecord): string | null {
    return app.webhookSecretSealed ? unseal(this.key, app.webhookSecretSealed, app.clientId) : null;
  }
}
