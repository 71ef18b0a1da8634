// The account page's data section: download everything Sigil holds about you (JSON), and delete
// the account after the password again, or (with JavaScript, when the user has a passkey) after one
// of the user's passkeys: the page's script shows that button (docs/http-api.md#account).
import { Card, Csrf, Field, type FormProblem, type Ui } from "./layout.js";

export function AccountData(p: {
  ui: Ui;
  csrf: string;
  error?: FormProblem | undefined;
  /** Offer "Delete with a passkey" (passkeys offered here and the user has one; shown by the script). */
  passkeyDelete?: boolean | undefined;
}) {
  const { t } = p.ui;
  return (
    <Card labelledBy="your-data">
      <h2 id="your-data">{t("accountData.title")}</h2>
      <p class="muted">{t("accountData.exportLead", { service: p.ui.service.name })}</p>
      <p>
        <a href="/account/export" download="">
          {t("accountData.export")}
        </a>
      </p>
      <form method="post" action="/account/delete" class="subsection">
        <h3 id="delete-account">{t("accountData.deleteTitle")}</h3>
        <p>{t("accountData.deleteLead")}</p>
        <Csrf token={p.csrf} />
        <Field
          id="password"
          name="password"
          label={t("accountData.password")}
          problem={p.error}
          control={(a) => <input {...a} type="password" name="password" autocomplete="current-password" required />}
        />
        <button type="submit" class="danger">
          {t("accountData.delete")}
        </button>
      </form>
      {p.passkeyDelete ? (
        <div id="passkey-delete" hidden data-csrf={p.csrf} data-failed={t("accountData.passkeyFailed")}>
          <p class="muted">{t("accountData.passkeyLead")}</p>
          <button type="button" id="passkey-delete-button" class="danger">
            {t("accountData.passkeyDelete")}
          </button>
          <p class="field-error" id="passkey-delete-error" role="alert" hidden></p>
        </div>
      ) : null}
    </Card>
  );
}
