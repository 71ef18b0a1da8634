// The email section of /account: the address, whether it is confirmed, change / remove, send the link again.
import type { UserRecord } from "../store/port.js";
import { Card, Csrf, EmailField, type FormProblem, type Ui } from "./layout.js";

export function AccountEmail(p: {
  ui: Ui;
  user: UserRecord;
  csrf: string;
  /** Whether mail can be sent (SMTP_URL). */
  mail: boolean;
  error?: FormProblem | undefined;
  /** What was typed before "Confirm it's you", shown instead of the address. */
  typed?: string | undefined;
}) {
  const { t } = p.ui;
  const { email, emailVerified } = p.user;
  return (
    <Card labelledBy="email-heading">
      <h2 id="email-heading">{t("account.email")}</h2>
      {!p.mail ? <p class="muted">{t("email.notSetUp", { service: p.ui.service.name })}</p> : null}
      {email ? (
        <p>
          <code class="email">{email}</code>{" "}
          <span class="badge">{t(emailVerified ? "account.emailVerified" : "account.emailUnverified")}</span>
        </p>
      ) : (
        <p class="muted">{t("account.emailNone")}</p>
      )}
      <form method="post" action="/account/email" class="subsection">
        <Csrf token={p.csrf} />
        <EmailField
          label={t("account.email")}
          hint={email ? t("account.emailHint") : undefined}
          value={p.typed ?? email ?? ""}
          problem={p.error}
        />
        <button type="submit">{t("account.emailSave")}</button>
      </form>
      {email && !emailVerified && p.mail ? (
        <form method="post" action="/account/email/resend" class="subsection">
          <Csrf token={p.csrf} />
          <button type="submit" class="secondary">
            {t("account.emailResend")}
          </button>
        </form>
      ) : null}
    </Card>
  );
}
