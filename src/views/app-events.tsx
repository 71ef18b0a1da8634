// An app's identity events on the developers console (docs/events.md#registering): its webhook URL
// (the signing secret is shown once, when made), the channels also sent to it, and its back-channel
// logout URL, and the last deliveries to them with their answers.
import type { AppRecord, DeliveryAttempt, DeliveryFailure } from "../store/port.js";
import { Csrf, Field, type FormProblem, type Ui } from "./layout.js";

/** The events form as it was sent, when it was refused. */
export interface EventsForm {
  clientId: string;
  webhookUrl: string;
  backchannelLogoutUri: string;
  webhookChannels: string;
}

export function AppEventsForm(p: {
  ui: Ui;
  app: AppRecord;
  csrf: string;
  form?: EventsForm | undefined;
  error?: FormProblem | undefined;
  /** Shown open: the form was just sent. */
  open?: boolean | undefined;
  /** The last attempts to deliver to the app's URLs, newest first. */
  deliveries?: DeliveryAttempt[] | undefined;
}) {
  const { t } = p.ui;
  const id = (f: string) => `events-${f}-${p.app.clientId}`;
  const v = p.form ?? {
    webhookUrl: p.app.webhookUrl ?? "",
    backchannelLogoutUri: p.app.backchannelLogoutUri ?? "",
    webhookChannels: (p.app.webhookChannels ?? []).join(", "),
  };
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
          id={id("webhook_channels")}
          name="webhook_channels"
          label={t("dev.webhookChannels")}
          hint={t("dev.webhookChannelsHint")}
          problem={p.error}
          control={(a) => (
            <input {...a} type="text" name="webhook_channels" maxLength={4000} value={v.webhookChannels} />
          )}
        />
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
      {p.app.webhookUrl || p.app.backchannelLogoutUri || p.deliveries?.length ? (
        <Deliveries ui={p.ui} list={p.deliveries ?? []} clientId={p.app.clientId} />
      ) : null}
    </details>
  );
}

/** Why an attempt failed, in the page's language (stored as a code: DeliveryFailure). */
function failureText(ui: Ui, f: DeliveryFailure): string {
  switch (f.code) {
    case "redirect":
      return ui.t("dev.failRedirect");
    case "timeout":
      return ui.t("dev.failTimeout", { ms: f.ms });
    case "not_public":
      return ui.t("dev.failNotPublic");
    case "connection":
      return f.errno ? ui.t("dev.failConnectionCode", { code: f.errno }) : ui.t("dev.failConnection");
    case "secret_unreadable":
      return ui.t("dev.failSecret");
  }
}

const OUTCOME = {
  delivered: "dev.outcomeDelivered",
  retrying: "dev.outcomeRetrying",
  failed: "dev.outcomeFailed",
} as const;

/** The last attempts and their answers (status, or why there was none). */
function Deliveries(p: { ui: Ui; list: DeliveryAttempt[]; clientId: string }) {
  const { t } = p.ui;
  const head = `deliveries-${p.clientId}`;
  return (
    <section class="deliveries" aria-labelledby={head}>
      <h4 id={head}>{t("dev.deliveries")}</h4>
      {p.list.length === 0 ? (
        <p class="muted">{t("dev.noDeliveries")}</p>
      ) : (
        <table class="delivery-list stack">
          <thead>
            <tr>
              <th scope="col">{t("dev.deliveryWhen")}</th>
              <th scope="col">{t("dev.deliveryEvent")}</th>
              <th scope="col">{t("dev.deliveryTo")}</th>
              <th scope="col">{t("dev.deliveryAttempt")}</th>
              <th scope="col">{t("dev.deliveryAnswer")}</th>
              <th scope="col">{t("dev.deliveryOutcome")}</th>
            </tr>
          </thead>
          <tbody>
            {p.list.map((a) => (
              <tr key={`${a.id}-${a.attempt}`} data-delivery={a.id} data-outcome={a.outcome}>
                <td data-label={t("dev.deliveryWhen")}>
                  <time datetime={new Date(a.at).toISOString()}>{p.ui.date(a.at)}</time>
                </td>
                <td data-label={t("dev.deliveryEvent")}>
                  <code>{a.type}</code>
                </td>
                <td data-label={t("dev.deliveryTo")}>
                  {t(a.kind === "webhook" ? "dev.kindWebhook" : "dev.kindBackchannel")}
                </td>
                <td data-label={t("dev.deliveryAttempt")}>{p.ui.number(a.attempt)}</td>
                <td data-label={t("dev.deliveryAnswer")} class="delivery-answer">
                  {a.status !== undefined ? <code>{a.status}</code> : null}
                  {a.failure !== undefined ? (
                    <span class="muted"> {failureText(p.ui, a.failure)}</span>
                  ) : a.error !== undefined ? (
                    <span class="muted"> {a.error}</span>
                  ) : null}
                  <span class="muted"> ({p.ui.number(a.ms)} ms)</span>
                </td>
                <td data-label={t("dev.deliveryOutcome")}>{t(OUTCOME[a.outcome])}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
