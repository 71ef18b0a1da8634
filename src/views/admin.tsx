// {auth_url}/admin — the administration console's pages (docs/pages.md#administration, CONTRACT
// §14): its home for admins, the refusal for everyone else, and the request to an admin without
// two-factor or a passkey (ADMIN_REQUIRE_2FA) to set one up first.
import { Card, Page, type Ui } from "./layout.js";

type Signed = { username: string; displayName: string };

/** The admin home: who is signed in, and the areas of administration. */
export function AdminHomePage(p: { ui: Ui; user: Signed; csrf: string }) {
  const { t } = p.ui;
  const service = p.ui.service.name;
  const areas: Array<[string, string]> = [
    [t("admin.users"), "/admin/users"],
    [t("admin.apps"), "/admin/apps"],
    [t("admin.groups"), "/admin/groups"],
    [t("admin.invitations"), "/admin/invitations"],
    [t("admin.upstreams"), "/admin/upstreams"],
    [t("admin.audit"), "/admin/audit"],
  ];
  return (
    <Page ui={p.ui} title={t("admin.title")} user={p.user} csrf={p.csrf}>
      <Card>
        <p class="admin-who">{t("admin.signedInAs", { name: p.user.displayName, service })}</p>
        <p>{t("admin.areasLead")}</p>
        <ul class="list admin-areas">
          {areas.map(([a, href]) => (
            <li key={a}>
              <a href={href}>{a}</a>
            </li>
          ))}
        </ul>
        <p class="muted">{t("admin.cliNote")}</p>
      </Card>
    </Page>
  );
}

/** 403 for a signed-in person who is not an admin. */
export function AdminForbiddenPage(p: { ui: Ui; user: Signed; csrf: string }) {
  const { t } = p.ui;
  return (
    <Page ui={p.ui} title={t("admin.forbiddenTitle")} user={p.user} csrf={p.csrf} narrow>
      <div class="error" role="alert">
        <p>{t("admin.forbidden", { service: p.ui.service.name })}</p>
      </div>
      <p>
        <a href="/account">{t("error.goAccount")}</a>
      </p>
    </Page>
  );
}

/** An admin without two-factor or a passkey, while ADMIN_REQUIRE_2FA is on: set one up first. */
export function AdminNeedsSecondFactorPage(p: { ui: Ui; user: Signed; csrf: string; passkeys: boolean }) {
  const { t } = p.ui;
  return (
    <Page ui={p.ui} title={t("admin.needsTitle")} user={p.user} csrf={p.csrf} narrow>
      <Card>
        <p>{t("admin.needs", { service: p.ui.service.name })}</p>
        <ul class="list admin-setup">
          <li>
            <a href="/account#two-factor">{t("admin.setUpTwoFactor")}</a>
          </li>
          {p.passkeys ? (
            <li>
              <a href="/account#passkeys">{t("admin.addPasskey")}</a>
            </li>
          ) : null}
        </ul>
      </Card>
    </Page>
  );
}
