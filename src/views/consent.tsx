// The consent page of /authorize (docs/http-api.md#sign-in-with-sigil) and the error page that never redirects.
import type { MessageKey } from "../i18n/index.js";
import type { UserRecord } from "../store/port.js";
import { Card, Csrf, Page, type Ui } from "./layout.js";

/** What each scope lets the app do, in plain words (profile is three things). */
const SCOPE_WORDS: Readonly<Record<string, readonly MessageKey[]>> = {
  openid: ["scope.openid"],
  profile: ["scope.profile.name", "scope.profile.username", "scope.profile.picture"],
  email: ["scope.email"],
  groups: ["scope.groups"],
  offline_access: ["scope.offline_access"],
  realtime: ["scope.realtime"],
};

/** The host of an app's homepage, or undefined when it has none (or it cannot be read). */
export function homepageHost(homepage: string | undefined): string | undefined {
  if (!homepage) return undefined;
  try {
    return new URL(homepage).host || undefined;
  } catch {
    return undefined;
  }
}

export function ConsentPage(p: {
  ui: Ui;
  user: UserRecord;
  appName: string;
  /** The app's registered homepage (its host is shown). */
  homepage?: string | undefined;
  /** A public client (no secret); otherwise confidential. */
  publicClient?: boolean | undefined;
  /** The requested scopes (openid, profile, email, groups, offline_access, realtime). */
  scopes: string[];
  pictureUrl?: string | undefined;
  csrf: string;
  hidden: Record<string, string>;
  /** Where the decision goes (/authorize; /device/decide for a device). */
  action?: string | undefined;
  /** A line above the decision (a device's: check the code it shows). */
  note?: string | undefined;
}) {
  const { t, rich } = p.ui;
  const host = homepageHost(p.homepage);
  const seen = new Set<string>();
  const reads = p.scopes.filter((s) => !seen.has(s) && seen.add(s));
  return (
    <Page ui={p.ui} title={t("consent.title")} user={p.user} csrf={p.csrf} narrow>
      <Card class="app-card">
        <p>
          {rich("consent.wants", { app: <strong class="app-name">{p.appName}</strong>, service: p.ui.service.name })}
        </p>
        <dl class="facts">
          <dt>{t("consent.homepage")}</dt>
          <dd>
            {host ? <span class="app-host mono">{host}</span> : <span class="muted">{t("consent.noHomepage")}</span>}
          </dd>
          <dt>{t("consent.type")}</dt>
          <dd>
            <span class="badge app-type">{t(p.publicClient ? "consent.public" : "consent.confidential")}</span>
          </dd>
        </dl>
        <p class="muted">{t(p.publicClient ? "consent.publicHint" : "consent.confidentialHint")}</p>
      </Card>
      <Card labelledBy="will-read">
        <h2 id="will-read">{t("consent.willRead")}</h2>
        <ul class="reads">
          {reads.flatMap((s) =>
            (SCOPE_WORDS[s] ?? []).map((key) => (
              <li key={key} data-scope={s}>
                {t(key)}
              </li>
            )),
          )}
        </ul>
        <div class="whoami">
          {p.pictureUrl ? <img class="avatar" src={p.pictureUrl} alt="" width={40} height={40} /> : null}
          <p>{rich("consent.signedInAs", { name: <strong>{p.user.displayName}</strong> })}</p>
        </div>
        <p class="muted">{t("consent.password")}</p>
        {p.note ? <p class="device-code-check">{p.note}</p> : null}
        <form method="post" action={p.action ?? "/authorize"}>
          <Csrf token={p.csrf} />
          {Object.entries(p.hidden).map(([k, v]) => (
            <input key={k} type="hidden" name={k} value={v} />
          ))}
          <div class="actions">
            <button type="submit" name="decision" value="allow">
              {t("consent.allow")}
            </button>
            <button type="submit" name="decision" value="deny" class="secondary">
              {t("consent.deny")}
            </button>
          </div>
        </form>
      </Card>
    </Page>
  );
}

/**
 * An app restricted to groups the user is in none of (docs/pages.md): says so, and sends the user
 * back to the app, which receives error=access_denied (the form's "deny", answered by /authorize).
 */
export function NotInGroupsPage(p: {
  ui: Ui;
  user: UserRecord;
  appName: string;
  csrf: string;
  hidden: Record<string, string>;
}) {
  const { t, rich } = p.ui;
  return (
    <Page ui={p.ui} title={t("restricted.title")} user={p.user} csrf={p.csrf} narrow>
      <div class="error" role="alert">
        <p>
          {rich("restricted.body", { app: <strong class="app-name">{p.appName}</strong>, service: p.ui.service.name })}
        </p>
      </div>
      <p class="muted">{rich("consent.signedInAs", { name: <strong>{p.user.displayName}</strong> })}</p>
      <form method="post" action="/authorize">
        <Csrf token={p.csrf} />
        {Object.entries(p.hidden).map(([k, v]) => (
          <input key={k} type="hidden" name={k} value={v} />
        ))}
        <div class="actions">
          <button type="submit" name="decision" value="deny">
            {t("restricted.back", { app: p.appName })}
          </button>
        </div>
      </form>
      <p>
        <a href="/account">{t("error.goAccount")}</a>
      </p>
    </Page>
  );
}

/**
 * SIGNUP_EMAIL_DOMAINS: an account made under it whose address is not confirmed yet (docs/pages.md).
 * The app gets nothing: the page offers a new confirmation mail and the account page (to change
 * the address); once confirmed, the same request goes on (403).
 */
export function ConfirmEmailFirstPage(p: { ui: Ui; user: UserRecord; appName: string; csrf: string }) {
  const { t, rich } = p.ui;
  const email = p.user.email;
  return (
    <Page ui={p.ui} title={t("confirmFirst.title")} user={p.user} csrf={p.csrf} narrow>
      <div class="error" role="alert">
        <p>
          {rich("confirmFirst.body", {
            app: <strong class="app-name">{p.appName}</strong>,
            service: p.ui.service.name,
          })}
        </p>
      </div>
      {email ? (
        <>
          <p>{rich("confirmFirst.sentTo", { email: <strong class="email">{email}</strong> })}</p>
          <form method="post" action="/account/email/resend">
            <Csrf token={p.csrf} />
            <div class="actions">
              <button type="submit">{t("confirmFirst.resend")}</button>
            </div>
          </form>
        </>
      ) : (
        <p>{t("confirmFirst.noAddress")}</p>
      )}
      <p>
        <a href="/account">{t("confirmFirst.account")}</a>
      </p>
    </Page>
  );
}

export function ErrorPage(p: { ui: Ui; title: string; message: string }) {
  return (
    <Page ui={p.ui} title={p.title} narrow>
      <div class="error" role="alert">
        <p>{p.message}</p>
      </div>
      <p>
        <a href="/account">{p.ui.t("error.goAccount")}</a>
      </p>
    </Page>
  );
}
