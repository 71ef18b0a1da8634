// The pages of email confirmation and password recovery (docs/http-api.md#email-and-password-recovery):
// /forgot, the reset form, and what a used link shows.
import { Card, Csrf, ErrorNote, Field, NewPasswordField, Notice, Page, type FormProblem, type Ui } from "./layout.js";

/** GET /forgot (and its answer): the form; sent: the answer, the same for every identifier; off: no mail. */
export function ForgotPage(p: {
  ui: Ui;
  csrf: string;
  state: "form" | "sent" | "off";
  within: string;
  error?: FormProblem | undefined;
}) {
  const { t } = p.ui;
  const service = p.ui.service.name;
  if (p.state === "off") {
    return (
      <Page ui={p.ui} title={t("forgot.title")} narrow>
        <Notice>
          <p>{t("forgot.off", { service, command: "sigil users reset-password" })}</p>
        </Notice>
        <p>
          <a href="/signin">{t("forgot.back")}</a>
        </p>
      </Page>
    );
  }
  if (p.state === "sent") {
    return (
      <Page ui={p.ui} title={t("forgot.sentTitle")} narrow>
        <Notice>
          <p>{t("forgot.sentText", { within: p.within })}</p>
        </Notice>
        <p>
          <a href="/signin">{t("forgot.back")}</a>
        </p>
      </Page>
    );
  }
  return (
    <Page ui={p.ui} title={t("forgot.title")} narrow>
      <p class="lead">{t("forgot.lead")}</p>
      <ErrorNote ui={p.ui} problem={p.error} />
      <Card>
        <form method="post" action="/forgot">
          <Csrf token={p.csrf} />
          <Field
            id="identifier"
            name="identifier"
            label={t("forgot.identifier")}
            control={(a) => (
              <input
                {...a}
                type="text"
                name="identifier"
                autocomplete="username"
                autocapitalize="none"
                spellcheck={false}
                required
                maxLength={254}
              />
            )}
          />
          <button type="submit" class="wide">
            {t("forgot.submit")}
          </button>
        </form>
      </Card>
      <p>
        <a href="/signin">{t("forgot.back")}</a>
      </p>
    </Page>
  );
}

/**
 * GET /reset?token=…: the form for a new password (the token travels on in a hidden field); when
 * the account has passkeys, a box to remove them all as well (one may be someone else's).
 */
export function ResetPage(p: {
  ui: Ui;
  csrf: string;
  token: string;
  passkeys: boolean;
  removePasskeys?: boolean;
  error?: FormProblem | undefined;
}) {
  const { t } = p.ui;
  return (
    <Page ui={p.ui} title={t("reset.title")} narrow>
      <p class="lead">{t("reset.lead")}</p>
      <ErrorNote ui={p.ui} problem={p.error} fields={["password"]} />
      <Card>
        <form method="post" action="/reset">
          <Csrf token={p.csrf} />
          <input type="hidden" name="token" value={p.token} />
          <NewPasswordField label={t("reset.password")} hint={t("reset.passwordHint")} problem={p.error} />
          {p.passkeys ? (
            <div class="check">
              <input
                type="checkbox"
                name="remove_passkeys"
                value="1"
                id="remove_passkeys"
                aria-describedby="remove_passkeys-hint"
                checked={p.removePasskeys === true}
              />
              <div>
                <label for="remove_passkeys">{t("reset.removePasskeys")}</label>
                <span class="hint" id="remove_passkeys-hint">
                  {t("reset.removePasskeysHint")}
                </span>
              </div>
            </div>
          ) : null}
          <button type="submit" class="wide">
            {t("reset.submit")}
          </button>
        </form>
      </Card>
    </Page>
  );
}

/** What a link leads to when it is done, or no good: a title, a text, and where to go on. */
export function LinkOutcomePage(p: { ui: Ui; outcome: "confirmed" | "reset" | "invalid"; status?: "ok" | "error" }) {
  const { t } = p.ui;
  if (p.outcome === "invalid") {
    return (
      <Page ui={p.ui} title={t("link.invalidTitle")} narrow>
        <div class="error" role="alert">
          <p>{t("link.invalidText")}</p>
        </div>
        <p>
          <a href="/forgot">{t("forgot.title")}</a> · <a href="/account">{t("email.toAccount")}</a>
        </p>
      </Page>
    );
  }
  const reset = p.outcome === "reset";
  return (
    <Page ui={p.ui} title={t(reset ? "reset.doneTitle" : "email.confirmedTitle")} narrow>
      <Notice>
        <p>{t(reset ? "reset.doneText" : "email.confirmedText")}</p>
      </Notice>
      <p>{reset ? <a href="/signin">{t("reset.toSignin")}</a> : <a href="/account">{t("email.toAccount")}</a>}</p>
    </Page>
  );
}
