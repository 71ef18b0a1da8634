// The password section of /account: a new password, after "Confirm it's you" (docs/http-api.md#account).
import { Card, Csrf, Field, type FormProblem, type Ui } from "./layout.js";

export function AccountPassword(p: { ui: Ui; csrf: string; error?: FormProblem | undefined }) {
  const { t } = p.ui;
  return (
    <Card labelledBy="password-heading">
      <h2 id="password-heading">{t("account.passwordTitle")}</h2>
      <p class="muted">{t("account.passwordLead")}</p>
      <form method="post" action="/account/password" class="subsection">
        <Csrf token={p.csrf} />
        <Field
          id="new_password"
          name="new_password"
          label={t("reset.password")}
          hint={t("reset.passwordHint")}
          problem={p.error}
          control={(a) => (
            <input
              {...a}
              type="password"
              name="new_password"
              autocomplete="new-password"
              required
              minLength={8}
              maxLength={128}
            />
          )}
        />
        <button type="submit">{t("account.passwordSave")}</button>
      </form>
    </Card>
  );
}
