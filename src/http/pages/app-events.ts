// {auth_url}/developers/:clientId/events (docs/http-api.md#developers): the owner sets or clears
// the app's webhook URL, the channels also sent to it, and back-channel logout URL
// (domain/event-endpoints.ts). A webhook URL that
// changes, or the "new secret" box, makes a new signing secret, shown in this answer only. A
// refused value gives the form back with the reason and changes nothing; to anyone but the owner
// the app does not exist (404).
import { FormError } from "../../domain/accounts.js";
import { field, page, type PagesDeps } from "./context.js";
import { ownerAndApp } from "./custom-tokens.js";
import { byOwner, renderConsole } from "./developers.js";
import { pageUi } from "./ui.js";

export function setAppEvents(deps: PagesDeps) {
  return page(async (req, res) => {
    const found = await ownerAndApp(req, res, deps);
    if (!found) return;
    const { user, app } = found;
    const webhookUrl = field(req, "webhook_url").trim();
    const backchannelLogoutUri = field(req, "backchannel_logout_uri").trim();
    const webhookChannels = field(req, "webhook_channels").trim();
    try {
      const { app: saved, webhookSecret } = await deps.eventEndpoints.set(app, {
        // The same URL again keeps its secret, unless a new one is asked for.
        ...(webhookUrl !== (app.webhookUrl ?? "") ? { webhookUrl } : {}),
        newWebhookSecret: field(req, "new_webhook_secret") === "1",
        backchannelLogoutUri,
        webhookChannels,
      });
      deps.audit.record({ type: "app.updated", ...byOwner(req, user), clientId: app.clientId });
      const ui = pageUi(req, deps.config);
      await renderConsole(req, res, deps, user, 200, {
        done: ui.t("dev.eventsSaved", { app: saved.name }),
        ...(webhookSecret !== undefined ? { shownWebhookSecret: { app: app.clientId, secret: webhookSecret } } : {}),
        eventsOpen: app.clientId,
      });
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      await renderConsole(req, res, deps, user, err.status, {
        error: err,
        eventsForm: {
          clientId: app.clientId,
          webhookUrl: webhookUrl.slice(0, 2000),
          backchannelLogoutUri: backchannelLogoutUri.slice(0, 2000),
          webhookChannels: webhookChannels.slice(0, 4000),
        },
      });
    }
  });
}
