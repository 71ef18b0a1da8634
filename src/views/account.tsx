// The account page: display name, profile picture, app consents (docs/http-api.md#account).
import type { ComponentChildren } from "preact";
import type { UserRecord } from "../store/port.js";
import { AccountTwoFactor } from "./two-factor.js";
import { AccountData } from "./account-delete.js";
import { AccountSessions, type SessionRow } from "./account-sessions.js";
import { AccountActivity, type ActivityRow } from "./account-activity.js";
import { Card, Csrf, ErrorNote, Field, Notice, Page, type FormProblem, type Ui } from "./layout.js";
import { AccountEmail } from "./account-email.js";
import { AccountPassword } from "./account-password.js";

const ACCOUNT_FIELDS = ["display_name", "picture", "email", "new_password", "password", "code"];

export function AccountPage(p: {
  ui: Ui;
  user: UserRecord;
  pictureUrl: string;
  /** trusted: an app the operator marked first-party (it signs the user in without asking). */
  consents: Array<{ clientId: string; name: string; trusted?: boolean }>;
  /** The browsers signed in to the account (account-sessions.tsx). */
  sessions?: SessionRow[];
  /** The user's last security events ("Recent activity", account-activity.tsx). */
  activity?: ActivityRow[] | undefined;
  csrf: string;
  error?: FormProblem | undefined;
  notice?: string | undefined;
  /** Whether mail can be sent (SMTP_URL): the email section says so when not. */
  mail?: boolean;
  /** The passkeys section (account-passkeys.tsx), and the script it needs, when passkeys are offered. */
  passkeys?: ComponentChildren;
  script?: string | undefined;
  /** Linked identities at upstream providers (views/upstreams.tsx AccountUpstreams). */
  upstreams?: ComponentChildren;
  /** "Delete with a passkey" on the deletion card (account-delete.tsx). */
  passkeyDelete?: boolean | undefined;
  /** Two-factor (views/two-factor.tsx). */
  twoFactor: { on: boolean; recoveryCodesLeft: number };
  /** What a form sent to "Confirm it's you" held (its safe fields), shown again. */
  draft?: Record<string, string> | undefined;
}) {
  const { t, rich, number } = p.ui;
  const mb = number(1, { style: "unit", unit: "megabyte", unitDisplay: "short" });
  return (
    <Page ui={p.ui} title={t("account.title")} user={p.user} csrf={p.csrf} current="account" script={p.script}>
      <ErrorNote ui={p.ui} problem={p.error} fields={ACCOUNT_FIELDS} />
      {p.notice ? (
        <Notice>
          <p>{p.notice}</p>
        </Notice>
      ) : null}
      <Card labelledBy="profile">
        <h2 id="profile">{t("account.profile")}</h2>
        <div class="whoami">
          <img src={p.pictureUrl} class="avatar" alt={t("account.pictureAlt")} width={96} height={96} />
          <p>
            {rich("account.signedInAs", {
              name: <strong class="display-name">{p.user.displayName}</strong>,
              username: <code>{p.user.username}</code>,
            })}
          </p>
        </div>
        <form method="post" action="/account" class="subsection">
          <Csrf token={p.csrf} />
          <Field
            id="display_name"
            name="display_name"
            label={t("account.displayName")}
            problem={p.error}
            control={(a) => (
              <input
                {...a}
                type="text"
                name="display_name"
                autocomplete="name"
                required
                maxLength={64}
                value={p.user.displayName}
              />
            )}
          />
          <button type="submit">{t("account.save")}</button>
        </form>
        {/* The token stays the form's first field: the server reads it, and checks it, before the file. */}
        <form method="post" action="/account" enctype="multipart/form-data" class="subsection">
          <Csrf token={p.csrf} />
          <Field
            id="picture"
            name="picture"
            label={t("account.picture")}
            hint={t("account.pictureHint", { size: mb, pixels: 8000, box: "512×512" })}
            problem={p.error}
            control={(a) => (
              <input {...a} type="file" name="picture" accept="image/png,image/jpeg,image/gif,image/webp" required />
            )}
          />
          <button type="submit">{t("account.upload")}</button>
        </form>
      </Card>
      <AccountEmail
        ui={p.ui}
        user={p.user}
        csrf={p.csrf}
        mail={p.mail ?? false}
        error={p.error}
        typed={p.draft?.email}
      />
      <AccountPassword ui={p.ui} csrf={p.csrf} error={p.error} />
      <AccountTwoFactor ui={p.ui} csrf={p.csrf} status={p.twoFactor} error={p.error} />
      <Card labelledBy="apps">
        <h2 id="apps">{t("account.apps")}</h2>
        {p.consents.length === 0 ? (
          <p class="muted">{t("account.appsNone")}</p>
        ) : (
          <>
            <p class="muted">{t("account.appsLead")}</p>
            <ul class="list">
              {p.consents.map((c, i) => (
                <li key={c.clientId}>
                  <span id={`consent-${i}`}>
                    {c.name}
                    {c.trusted ? <span class="muted"> · {t("account.trustedApp")}</span> : null}
                  </span>
                  <form method="post" action="/account/consents/withdraw">
                    <Csrf token={p.csrf} />
                    <input type="hidden" name="client_id" value={c.clientId} />
                    <button type="submit" class="danger" aria-describedby={`consent-${i}`}>
                      {t("account.withdraw")}
                    </button>
                  </form>
                </li>
              ))}
            </ul>
          </>
        )}
      </Card>
      {p.passkeys}
      {p.upstreams}
      {p.sessions ? <AccountSessions ui={p.ui} sessions={p.sessions} csrf={p.csrf} /> : null}
      {p.activity ? <AccountActivity ui={p.ui} rows={p.activity} /> : null}
      <AccountData ui={p.ui} csrf={p.csrf} error={p.error} passkeyDelete={p.passkeyDelete} />
    </Page>
  );
}
