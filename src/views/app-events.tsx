// An app's identity events on the developers console (docs/events.md#registering): its webhook URL
// (the signing secret is shown once, when made) and its back-channel logout URL, and the last
// deliveries to them with their answers.
import type { AppRecord } from "../store/port.js";
import { Csrf, Field, type FormProblem, type Ui } from "./layout.js";

/** The events form as it was sent, when it was refused. */
export interface EventsForm {
  clientId: string;
  webhookUrl: string;
  backchannelLogoutUri: string;
}

export function AppEventsForm(p: {
  ui: Ui;
  app: AppRecord;
  csrf: string;
  form?: EventsForm | undefined;
  error?: FormProblem | undefined;
  /** Shown open: the form was just sent. */
  open?: boolean | undefined;
}) {
  const { t } = p.ui;
  const id = (f: string) => `events-${f}-${p.app.clientId}`;
  const v = p.form ?? { webhookUrl: p.app.webhookUrl ?? "", backchannelLogoutUri: p.app.backchannelLogoutUri ?? "" };
  return (
    <details class="app-events" open={p.open === true || p.form !== undefined}>
      <summary>{t("dev.events")}</summary>
      <p class="muted">{t("dev.eventsLead")}</p>
      <form method="post" action={`/developers/${encodeURIComponent(p.app.clientId)}/events`}>
        <Csrf token={p.csrf} />
        <Field
          id={id("webhook_url")}
          name="webhook_url"
          label={t("dev.webhookUrl")}
          hint={t("dev.webhookUrlHint")}
          problem={p.error}
          control={(a) => <input {...a} type="url" name="webhook_url" maxLength={2000} value={v.webhookUrl} />}
        />
        {p.app.webhookUrl ? (
          <div class="check">
            <input type="checkbox" name="new_webhook_secret" value="1" id={id("new_webhook_secret")} />
            <label for={id("new_webhook_secret")}>{t("dev.newWebhookSecret")}</label>
          </div>
        ) : null}
        <Field
          id={id("backchannel_logout_uri")}
          name="backchannel_logout_uri"
          label={t("dev.backchannelLogout")}
          hint={t("dev.backchannelLogoutHint")}
          problem={p.error}
          control={(a) => (
            <input {...a} type="url" name="backchannel_logout_uri" maxLength={2000} value={v.backchannelLogoutUri} />
          )}
        />
        <button type="submit">{t("dev.eventsSubmit")}</button>
      </form>
    </details>
  );
}
