// {auth_url}/ — the landing page (docs/http-api.md#the-landing-page): the service's name, a way to
// sign in, and for a signed-in person the places they can go. No form but the header's sign-out.
import { Card, Page, type Ui } from "./layout.js";

/** A place a signed-in person can go from the landing page: its address, its name, what is there. */
export interface HomeLink {
  href: string;
  label: string;
  hint: string;
}

/** Where a signed-in person can go; the administration console (`/admin`, CONTRACT §14) for admins (the handler passes it). */
export function homeLinks(ui: Ui, opts: { admin?: HomeLink | undefined } = {}): HomeLink[] {
  const { t } = ui;
  const service = ui.service.name;
  return [
    { href: "/account", label: t("home.account"), hint: t("home.accountHint") },
    { href: "/developers", label: t("home.developers"), hint: t("home.developersHint", { service }) },
    ...(opts.admin ? [opts.admin] : []),
  ];
}

export function HomePage(p: {
  ui: Ui;
  /** The signed-in person, and the CSRF token of the header's sign-out form; absent: signed out. */
  user?: { username: string; displayName: string } | undefined;
  csrf?: string | undefined;
  links?: readonly HomeLink[];
  /** Whether to offer sign-up (SIGNUP is not `closed`); absent: yes. */
  signupOpen?: boolean;
}) {
  const { t, rich } = p.ui;
  const service = p.ui.service.name;
  return (
    <Page ui={p.ui} title={t("home.title", { service })} user={p.user} csrf={p.csrf} narrow>
      <p class="lead">{t("home.lead", { service })}</p>
      {p.user ? (
        <Card>
          <p>{rich("home.signedInAs", { name: <strong class="display-name">{p.user.displayName}</strong> })}</p>
          <ul class="list home-links">
            {(p.links ?? homeLinks(p.ui)).map((l) => (
              <li key={l.href}>
                <a href={l.href}>{l.label}</a>
                <span class="muted">{l.hint}</span>
              </li>
            ))}
          </ul>
        </Card>
      ) : (
        <Card>
          <p>
            <a class="button wide" href="/signin">
              {t("home.signin")}
            </a>
          </p>
          {p.signupOpen === false ? null : (
            <p>
              {t("signin.noAccount")} <a href="/signup">{t("signin.toSignup")}</a>
            </p>
          )}
        </Card>
      )}
    </Page>
  );
}
