// Sign-in and sign-up pages (docs/http-api.md#signup-and-signin).
import {
  Card,
  Csrf,
  EmailField,
  ErrorNote,
  Field,
  NewPasswordField,
  Page,
  type FormProblem,
  type Ui,
} from "./layout.js";
import { UpstreamButtons, type UpstreamButton } from "./upstreams.js";

const withReturn = (path: string, returnTo: string) => `${path}?${new URLSearchParams({ return_to: returnTo })}`;

export function SignInPage(p: {
  ui: Ui;
  csrf: string;
  returnTo: string;
  error?: FormProblem | undefined;
  username?: string | undefined;
  /** The passkeys script's address, when passkeys are offered (the button shows where WebAuthn runs). */
  passkeyScript?: string | undefined;
  /** Whether to offer sign-up (SIGNUP is not `closed`); absent: yes. */
  signupOpen?: boolean;
  /** "Continue with …" buttons (views/upstreams.tsx). */
  upstreams?: readonly UpstreamButton[] | undefined;
}) {
  const { t } = p.ui;
  return (
    <Page ui={p.ui} title={t("signin.title")} narrow script={p.passkeyScript}>
      <p class="lead">{t("signin.lead", { service: p.ui.service.name })}</p>
      <ErrorNote ui={p.ui} problem={p.error} />
      <Card>
        <form method="post" action={withReturn("/signin", p.returnTo)}>
          <Csrf token={p.csrf} />
          <Field
            id="username"
            name="username"
            label={t("signin.username")}
            problem={p.error}
            control={(a) => (
              <input
                {...a}
                type="text"
                name="username"
                // "webauthn": the browser may offer passkeys here (autofill, conditional mediation).
                autocomplete={p.passkeyScript ? "username webauthn" : "username"}
                autocapitalize="none"
                spellcheck={false}
                required
                value={p.username ?? ""}
              />
            )}
          />
          <Field
            id="password"
            name="password"
            label={t("signin.password")}
            problem={p.error}
            control={(a) => <input {...a} type="password" name="password" autocomplete="current-password" required />}
          />
          <button type="submit" class="wide">
            {t("signin.submit")}
          </button>
        </form>
        {p.passkeyScript ? (
          // Hidden until the script finds WebAuthn: without JavaScript the page is the password form alone.
          <div id="passkey-signin" class="subsection" hidden data-csrf={p.csrf} data-return-to={p.returnTo}>
            <p class="muted">{t("signin.or")}</p>
            <button type="button" id="passkey-button" class="secondary wide">
              {t("signin.passkey")}
            </button>
            <p class="field-error" id="passkey-error" role="alert" hidden data-failed={t("passkeys.failed")}></p>
          </div>
        ) : null}
        <UpstreamButtons ui={p.ui} csrf={p.csrf} returnTo={p.returnTo} upstreams={p.upstreams ?? []} />
      </Card>
      <p>
        <a href="/forgot">{t("signin.forgot")}</a>
      </p>
      {p.signupOpen === false ? null : (
        <p>
          {t("signin.noAccount")} <a href={withReturn("/signup", p.returnTo)}>{t("signin.toSignup")}</a>
        </p>
      )}
    </Page>
  );
}

/**
 * SIGNUP=closed: /signup says that no account is made here, and leads back to sign-in.
 * SIGNUP=invite without a good invitation (invite): sign-up is by invitation, and why this link
 * does not work when one was given (gone).
 */
export function SignUpClosedPage(p: { ui: Ui; returnTo: string; invite?: { gone?: string | undefined } }) {
  const { t } = p.ui;
  return (
    <Page ui={p.ui} title={p.invite ? t("signup.inviteTitle") : t("signup.closedTitle")} narrow>
      {p.invite?.gone ? <ErrorNote ui={p.ui} problem={{ text: p.invite.gone }} /> : null}
      <Card>
        <p>
          {p.invite
            ? t("signup.inviteText", { service: p.ui.service.name })
            : t("signup.closedText", { service: p.ui.service.name })}
        </p>
      </Card>
      <p>
        {t("signup.haveAccount")} <a href={withReturn("/signin", p.returnTo)}>{t("signup.toSignin")}</a>
      </p>
    </Page>
  );
}

const SIGNUP_FIELDS = ["username", "display_name", "email", "password"];

export function SignUpPage(p: {
  ui: Ui;
  csrf: string;
  returnTo: string;
  error?: FormProblem | undefined;
  username?: string | undefined;
  displayName?: string | undefined;
  email?: string | undefined;
  /** SIGNUP=invite: the invitation's token (carried in the form, never in a URL the page makes) and its address. */
  invite?: { token: string; email?: string | undefined } | undefined;
  /** SIGNUP_EMAIL_DOMAINS, when set: the domains, as the hint names them ("a.example, b.example"). */
  emailDomains?: string | undefined;
  /** "Continue with …" buttons (views/upstreams.tsx); none on an invited sign-up (the invitation makes the account). */
  upstreams?: readonly UpstreamButton[] | undefined;
}) {
  const { t } = p.ui;
  return (
    <Page ui={p.ui} title={t("signup.title")} narrow>
      <p class="lead">{t("signup.lead", { service: p.ui.service.name })}</p>
      {p.invite?.email ? <p>{t("signup.invitedFor", { email: p.invite.email })}</p> : null}
      <ErrorNote ui={p.ui} problem={p.error} fields={SIGNUP_FIELDS} />
      <Card>
        <form method="post" action={withReturn("/signup", p.returnTo)}>
          <Csrf token={p.csrf} />
          {p.invite ? <input type="hidden" name="invite" value={p.invite.token} /> : null}
          <Field
            id="username"
            name="username"
            label={t("signup.username")}
            hint={t("signup.usernameHint")}
            problem={p.error}
            control={(a) => (
              <input
                {...a}
                type="text"
                name="username"
                autocomplete="username"
                autocapitalize="none"
                spellcheck={false}
                required
                minLength={3}
                maxLength={32}
                value={p.username ?? ""}
              />
            )}
          />
          <Field
            id="display_name"
            name="display_name"
            label={t("signup.displayName")}
            hint={t("signup.displayNameHint")}
            problem={p.error}
            control={(a) => (
              <input
                {...a}
                type="text"
                name="display_name"
                autocomplete="name"
                maxLength={64}
                value={p.displayName ?? ""}
              />
            )}
          />
          <EmailField
            label={t("signup.email")}
            hint={p.emailDomains ? t("signup.emailDomainsHint", { domains: p.emailDomains }) : t("signup.emailHint")}
            value={p.email ?? ""}
            problem={p.error}
          />
          <NewPasswordField label={t("signup.password")} hint={t("signup.passwordHint")} problem={p.error} />
          <button type="submit" class="wide">
            {t("signup.submit")}
          </button>
        </form>
        <UpstreamButtons ui={p.ui} csrf={p.csrf} returnTo={p.returnTo} upstreams={p.upstreams ?? []} />
      </Card>
      <p>
        {t("signup.haveAccount")} <a href={withReturn("/signin", p.returnTo)}>{t("signup.toSignin")}</a>
      </p>
    </Page>
  );
}
