// The developers console (docs/http-api.md#developers): register apps, see client ids, rotate secrets, delete,
// and each app's CUSTOM TOKENs.
import type { AppRecord, CustomTokenRecord, DeliveryAttempt, UserRecord } from "../store/port.js";
import { AppEditForm, type EditForm } from "./app-edit.js";
import { AppEventsForm, type EventsForm } from "./app-events.js";
import { homepageHost } from "./consent.js";
import { CustomTokensSection, type ShownToken } from "./custom-tokens.js";
import { Card, Csrf, ErrorNote, Field, Notice, Page, type FormProblem, type Ui } from "./layout.js";

export interface ShownSecret {
  clientId: string;
  /** undefined for a public client (it has none). */
  clientSecret: string | undefined;
  /** What happened, in the page's language. */
  what: string;
}

const REGISTER_FIELDS = ["name", "redirect_uri", "post_logout_redirect_uri", "homepage"];

export function DevelopersPage(p: {
  ui: Ui;
  user: UserRecord;
  apps: AppRecord[];
  /** Each app's CUSTOM TOKENs by client_id (records, without values). */
  tokens: Map<string, CustomTokenRecord[]>;
  csrf: string;
  /** The time the page speaks of (ms), for "expired". */
  now: number;
  shown?: ShownSecret | undefined;
  shownToken?: ShownToken | undefined;
  error?: FormProblem | undefined;
  /** What the registration form held when it was refused, to correct it. */
  form?:
    | { name: string; redirectUris: string; postLogoutRedirectUris: string; homepage: string; publicClient: boolean }
    | undefined;
  /** The edit form of one app as it was sent, when it was refused (the error is about it). */
  editForm?: EditForm | undefined;
  /** What happened (an app was edited), in the page's language. */
  done?: string | undefined;
  /** A webhook signing secret just made (shown this once, in its app's section). */
  shownWebhookSecret?: { app: string; secret: string } | undefined;
  /** One app's events form as it was sent, when it was refused (the error is about it). */
  eventsForm?: EventsForm | undefined;
  /** The app whose events form was just sent (shown open). */
  eventsOpen?: string | undefined;
  /** Each app's last delivery attempts by client_id (webhook and back-channel logout). */
  deliveries?: Map<string, DeliveryAttempt[]> | undefined;
  /** Whether the registration form is offered (APP_REGISTRATION); absent: yes. */
  mayRegister?: boolean;
  /** SIGNUP_EMAIL_DOMAINS: registration waits for the account's address to be confirmed. */
  confirmEmailFirst?: boolean;
}) {
  const { t } = p.ui;
  const elsewhere = p.editForm ?? p.eventsForm;
  const registerProblem = elsewhere ? undefined : p.error;
  return (
    <Page ui={p.ui} title={t("dev.title")} user={p.user} csrf={p.csrf} current="developers">
      <p class="lead">{t("dev.lead", { service: p.ui.service.name })}</p>
      <ErrorNote ui={p.ui} problem={p.error} fields={elsewhere ? [] : REGISTER_FIELDS} />
      {p.done ? (
        <Notice>
          <p>{p.done}</p>
        </Notice>
      ) : null}
      {p.shown ? (
        <Notice>
          <p>
            {p.shown.what} {t(p.shown.clientSecret === undefined ? "dev.publicRegistered" : "dev.copySecret")}
          </p>
          <p>
            client_id: <code class="client-id">{p.shown.clientId}</code>
          </p>
          {p.shown.clientSecret === undefined ? null : (
            <p>
              client_secret: <code class="secret client-secret">{p.shown.clientSecret}</code>
            </p>
          )}
        </Notice>
      ) : null}
      <Card labelledBy="register">
        <h2 id="register">{t("dev.register")}</h2>
        {p.mayRegister === false ? (
          p.confirmEmailFirst ? (
            <p class="registration-confirm-email">
              {t("dev.confirmEmailFirst")} <a href="/account">{t("confirmFirst.account")}</a>
            </p>
          ) : (
            <p class="registration-admins">{t("err.appRegistrationAdmins", { service: p.ui.service.name })}</p>
          )
        ) : (
          <form method="post" action="/developers">
            <Csrf token={p.csrf} />
            <Field
              id="name"
              name="name"
              label={t("dev.name")}
              problem={registerProblem}
              control={(a) => (
                <input {...a} type="text" name="name" required maxLength={64} value={p.form?.name ?? ""} />
              )}
            />
            <Field
              id="redirect_uri"
              name="redirect_uri"
              label={t("dev.redirects")}
              hint={t("dev.redirectsHint")}
              problem={registerProblem}
              control={(a) => (
                <textarea {...a} name="redirect_uri" rows={3} required spellcheck={false}>
                  {p.form?.redirectUris ?? ""}
                </textarea>
              )}
            />
            <Field
              id="post_logout_redirect_uri"
              name="post_logout_redirect_uri"
              label={t("dev.postLogout")}
              hint={t("dev.postLogoutHint")}
              problem={registerProblem}
              control={(a) => (
                <textarea {...a} name="post_logout_redirect_uri" rows={2} spellcheck={false}>
                  {p.form?.postLogoutRedirectUris ?? ""}
                </textarea>
              )}
            />
            <Field
              id="homepage"
              name="homepage"
              label={t("dev.homepage")}
              hint={t("dev.homepageHint")}
              problem={registerProblem}
              control={(a) => (
                <input {...a} type="url" name="homepage" maxLength={2000} value={p.form?.homepage ?? ""} />
              )}
            />
            <fieldset>
              <legend>{t("dev.kind")}</legend>
              <div class="check">
                <input
                  type="radio"
                  name="client_type"
                  value="confidential"
                  id="client_type-confidential"
                  checked={!p.form?.publicClient}
                />
                <label for="client_type-confidential">{t("dev.kindConfidential")}</label>
              </div>
              <div class="check">
                <input
                  type="radio"
                  name="client_type"
                  value="public"
                  id="client_type-public"
                  checked={p.form?.publicClient === true}
                />
                <label for="client_type-public">{t("dev.kindPublic")}</label>
              </div>
            </fieldset>
            <button type="submit">{t("dev.registerSubmit")}</button>
          </form>
        )}
      </Card>
      <h2>{t("dev.yourApps")}</h2>
      {p.apps.length === 0 ? <p class="muted">{t("dev.noApps")}</p> : null}
      {p.apps.map((app) => {
        const host = homepageHost(app.homepage);
        return (
          <section key={app.clientId} class="app card" id={`app-${app.clientId}`} aria-labelledby={`h-${app.clientId}`}>
            <div class="section-head">
              <h3 id={`h-${app.clientId}`}>{app.name}</h3>
              <span class="badge">{t(app.public ? "consent.public" : "consent.confidential")}</span>
            </div>
            <dl class="facts">
              <dt>client_id</dt>
              <dd>
                <code>{app.clientId}</code>
              </dd>
              <dt>{t("dev.homepage")}</dt>
              <dd>{host ? <span class="mono">{host}</span> : <span class="muted">{t("consent.noHomepage")}</span>}</dd>
              <dt>{t("dev.redirects")}</dt>
              <dd>
                <ul class="plain">
                  {app.redirectUris.map((u) => (
                    <li key={u}>
                      <code>{u}</code>
                    </li>
                  ))}
                </ul>
              </dd>
              {app.webhookUrl ? (
                <>
                  <dt>{t("dev.webhookUrl")}</dt>
                  <dd>
                    <code class="webhook-url">{app.webhookUrl}</code>
                  </dd>
                </>
              ) : null}
              {app.backchannelLogoutUri ? (
                <>
                  <dt>{t("dev.backchannelLogout")}</dt>
                  <dd>
                    <code class="backchannel-logout-uri">{app.backchannelLogoutUri}</code>
                  </dd>
                </>
              ) : null}
              {app.postLogoutRedirectUris?.length ? (
                <>
                  <dt>{t("dev.postLogout")}</dt>
                  <dd>
                    <ul class="plain">
                      {app.postLogoutRedirectUris.map((u) => (
                        <li key={u}>
                          <code>{u}</code>
                        </li>
                      ))}
                    </ul>
                  </dd>
                </>
              ) : null}
            </dl>
            {app.previousSecretUntil && app.previousSecretUntil > p.now ? (
              <p>{t("dev.previousUntil", { date: p.ui.date(app.previousSecretUntil) })}</p>
            ) : null}
            <div class="inline-forms">
              {app.public ? (
                <p class="client-type muted">{t("dev.publicClient")}</p>
              ) : (
                <form method="post" action={`/developers/${encodeURIComponent(app.clientId)}/rotate`}>
                  <Csrf token={p.csrf} />
                  <div class="check">
                    <input type="checkbox" name="revoke_old" value="1" id={`revoke-old-${app.clientId}`} />
                    <label for={`revoke-old-${app.clientId}`}>{t("dev.revokeOld")}</label>
                  </div>
                  <button type="submit" class="secondary">
                    {t("dev.rotate")}
                  </button>
                </form>
              )}
              <form method="post" action={`/developers/${encodeURIComponent(app.clientId)}/delete`}>
                <Csrf token={p.csrf} />
                <button type="submit" class="danger">
                  {t("dev.delete")}
                </button>
              </form>
            </div>
            <AppEditForm
              ui={p.ui}
              app={app}
              csrf={p.csrf}
              form={p.editForm?.clientId === app.clientId ? p.editForm : undefined}
              error={p.editForm?.clientId === app.clientId ? p.error : undefined}
            />
            {p.shownWebhookSecret?.app === app.clientId ? (
              <Notice>
                <p>{t("dev.webhookSecret")}</p>
                <p>
                  <code class="secret webhook-secret">{p.shownWebhookSecret.secret}</code>
                </p>
              </Notice>
            ) : null}
            <AppEventsForm
              ui={p.ui}
              app={app}
              csrf={p.csrf}
              form={p.eventsForm?.clientId === app.clientId ? p.eventsForm : undefined}
              error={p.eventsForm?.clientId === app.clientId ? p.error : undefined}
              open={p.eventsOpen === app.clientId}
              deliveries={p.deliveries?.get(app.clientId)}
            />
            <CustomTokensSection
              ui={p.ui}
              clientId={app.clientId}
              tokens={p.tokens.get(app.clientId) ?? []}
              csrf={p.csrf}
              now={p.now}
              shown={p.shownToken?.app === app.clientId ? p.shownToken : undefined}
            />
          </section>
        );
      })}
    </Page>
  );
}
