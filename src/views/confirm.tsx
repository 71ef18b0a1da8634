// "Confirm it's you" (docs/http-api.md#confirming-its-you): before a change to how the account is
// signed in to or recovered, the current password, a code from the authenticator app (two-factor
// on), or one of the user's passkeys (shown by the pages' script where WebAuthn runs).
import { CodeField } from "./two-factor.js";
import { UpstreamButtons, type UpstreamButton } from "./upstreams.js";
import { Card, Csrf, ErrorNote, Field, Page, type FormProblem, type Ui } from "./layout.js";

const withReturn = (path: string, returnTo: string) => `${path}?${new URLSearchParams({ return_to: returnTo })}`;

export function ConfirmPage(p: {
  ui: Ui;
  user: { username: string };
  csrf: string;
  returnTo: string;
  /** Two-factor is on: a code from the app confirms too. */
  twoFactor: boolean;
  /** The passkeys script, when passkeys are offered here and the user has one. */
  passkeyScript?: string | undefined;
  /** How long a confirmation lasts (REAUTH_MAX_AGE), in minutes. */
  minutes: number;
  error?: FormProblem | undefined;
  /** Which form the error is about (both have one field). */
  errorForm?: "password" | "code" | undefined;
  /** The upstreams linked to the account: signing in there again confirms too. */
  upstreams?: readonly UpstreamButton[] | undefined;
}) {
  const { t } = p.ui;
  const action = withReturn("/confirm", p.returnTo);
  const passwordProblem = p.errorForm === "password" ? p.error : undefined;
  const codeProblem = p.errorForm === "code" ? p.error : undefined;
  return (
    <Page ui={p.ui} title={t("confirm.title")} user={p.user} csrf={p.csrf} narrow script={p.passkeyScript}>
      <p class="lead">{t("confirm.lead", { minutes: p.minutes })}</p>
      <ErrorNote ui={p.ui} problem={p.error} fields={["password", "code"]} />
      <Card labelledBy="confirm-password">
        <h2 id="confirm-password">{t("confirm.withPassword")}</h2>
        <form method="post" action={action}>
          <Csrf token={p.csrf} />
          <input type="hidden" name="method" value="password" />
          <Field
            id="password"
            name="password"
            label={t("signin.password")}
            problem={passwordProblem}
            control={(a) => <input {...a} type="password" name="password" autocomplete="current-password" required />}
          />
          <button type="submit" class="wide">
            {t("confirm.submit")}
          </button>
        </form>
      </Card>
      {p.twoFactor ? (
        <Card labelledBy="confirm-code">
          <h2 id="confirm-code">{t("confirm.withCode")}</h2>
          <form method="post" action={action}>
            <Csrf token={p.csrf} />
            <input type="hidden" name="method" value="code" />
            <CodeField ui={p.ui} problem={codeProblem} hint={t("confirm.codeHint")} />
            <button type="submit" class="wide">
              {t("confirm.submit")}
            </button>
          </form>
        </Card>
      ) : null}
      {p.passkeyScript ? (
        // Hidden until the script finds WebAuthn: without JavaScript the page is the forms above.
        <div id="passkey-confirm" class="card" hidden data-csrf={p.csrf} data-return-to={p.returnTo}>
          <p class="muted">{t("confirm.orPasskey")}</p>
          <button type="button" id="passkey-confirm-button" class="secondary wide">
            {t("confirm.withPasskey")}
          </button>
          <p class="field-error" id="passkey-confirm-error" role="alert" hidden data-failed={t("passkeys.failed")}></p>
        </div>
      ) : null}
      {p.upstreams?.length ? (
        <Card labelledBy="confirm-upstream">
          <h2 id="confirm-upstream">{t("account.upstreamsTitle")}</h2>
          <UpstreamButtons ui={p.ui} csrf={p.csrf} returnTo={p.returnTo} upstreams={p.upstreams} confirm />
        </Card>
      ) : null}
      <p>
        <a href={p.returnTo}>{t("twofa.cancel")}</a>
      </p>
    </Page>
  );
}
