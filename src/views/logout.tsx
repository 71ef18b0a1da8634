// RP-initiated logout (docs/http-api.md#logout): the question asked when the request does not
// prove which app sent it, and the page shown once signed out when the browser is not sent back
// to the app (a link to it instead, when the app is known).
import { homepageHost } from "./consent.js";
import { Card, Csrf, Page, type Ui } from "./layout.js";

export function LogoutConfirmPage(p: {
  ui: Ui;
  csrf: string;
  appName?: string | undefined;
  hidden: Record<string, string>;
}) {
  const { t, rich } = p.ui;
  const service = p.ui.service.name;
  return (
    <Page ui={p.ui} title={t("logout.title")} narrow>
      <Card>
        <p>
          {p.appName
            ? rich("logout.asks", { app: <strong class="app-name">{p.appName}</strong>, service })
            : t("logout.asksUnknown", { service })}
        </p>
        <form method="post" action="/logout">
          <Csrf token={p.csrf} />
          {Object.entries(p.hidden).map(([k, v]) => (
            <input key={k} type="hidden" name={k} value={v} />
          ))}
          <div class="actions">
            <button type="submit" name="decision" value="signout">
              {t("logout.submit")}
            </button>
          </div>
        </form>
        <p>
          <a href="/account">{t("logout.stay")}</a>
        </p>
      </Card>
    </Page>
  );
}

/** back: the app's registered URL (or homepage), shown as a link with its host; never followed by itself. */
export function SignedOutPage(p: { ui: Ui; back?: { name: string; href: string } | undefined }) {
  const { t, rich } = p.ui;
  const host = p.back && homepageHost(p.back.href);
  return (
    <Page ui={p.ui} title={t("logout.doneTitle")} narrow>
      <Card>
        <p>{t("logout.done", { service: p.ui.service.name })}</p>
        {p.back ? (
          <p>
            <a class="back-to-app" href={p.back.href}>
              {rich("logout.back", { app: <span class="app-name">{p.back.name}</span> })}
            </a>
            {host ? (
              <>
                {" "}
                <span class="app-host mono">({host})</span>
              </>
            ) : null}
          </p>
        ) : null}
        <p>
          <a href="/signin">{t("logout.again")}</a>
        </p>
      </Card>
    </Page>
  );
}
