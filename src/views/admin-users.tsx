// {auth_url}/admin/users and /admin/users/:id (docs/pages.md#administration, CONTRACT §14
// "Users"): the list of users with a search box and pages of 50, a user's page with what the
// account holds and the admin's actions (each a form; the actions need "Confirm it's you"), and
// the confirm step before deleting.
import { Card, ConfirmRemoval, Csrf, ErrorNote, Notice, Page, type FormProblem, type Ui } from "./layout.js";

type Signed = { username: string; displayName: string };

export interface UserRow {
  id: string;
  username: string;
  displayName: string;
  email?: string | undefined;
  emailVerified?: boolean | undefined;
  admin?: boolean | undefined;
  disabled?: boolean | undefined;
}

const userUrl = (id: string) => `/admin/users/${encodeURIComponent(id)}`;

function yesNo(ui: Ui, v: boolean | undefined) {
  return v === true ? ui.t("adminUsers.yes") : ui.t("adminUsers.no");
}

function EmailOf(p: { ui: Ui; user: UserRow }) {
  const { t } = p.ui;
  if (!p.user.email) return <span class="muted">{t("adminUsers.noEmail")}</span>;
  return (
    <>
      {p.user.email} ({p.user.emailVerified === true ? t("adminUsers.confirmed") : t("adminUsers.unconfirmed")})
    </>
  );
}

/** The list: search box, one page of users, the way to the next page and back to the first. */
export function AdminUsersPage(p: {
  ui: Ui;
  user: Signed;
  csrf: string;
  query: string;
  users: UserRow[];
  /** The cursor of the next page (the last username shown), when there may be more. */
  next?: string | undefined;
  /** Whether this is a later page (a link back to the first). */
  later: boolean;
  problem?: FormProblem | undefined;
  notice?: string | undefined;
}) {
  const { t } = p.ui;
  const q: Record<string, string> = p.query ? { q: p.query } : {};
  return (
    <Page ui={p.ui} title={t("adminUsers.title")} user={p.user} csrf={p.csrf}>
      <Card>
        <p>
          <a href="/admin">{t("admin.title")}</a>
        </p>
        <ErrorNote ui={p.ui} problem={p.problem} fields={["q"]} />
        {p.notice ? (
          <Notice>
            <p>{p.notice}</p>
          </Notice>
        ) : null}
        <form method="get" action="/admin/users" role="search">
          <div class="field">
            <label for="q">{t("adminUsers.search")}</label>
            <input
              id="q"
              name="q"
              type="search"
              value={p.problem ? "" : p.query}
              {...(p.problem ? { "aria-invalid": "true" as const } : {})}
            />
          </div>
          <button type="submit" class="secondary">
            {t("adminUsers.searchButton")}
          </button>
        </form>
        {p.users.length === 0 ? (
          <p class="muted">{t("adminUsers.none")}</p>
        ) : (
          <table class="admin-user-list stack">
            <thead>
              <tr>
                <th scope="col">{t("adminUsers.username")}</th>
                <th scope="col">{t("adminUsers.displayName")}</th>
                <th scope="col">{t("adminUsers.email")}</th>
                <th scope="col">{t("adminUsers.admin")}</th>
                <th scope="col">{t("adminUsers.disabled")}</th>
              </tr>
            </thead>
            <tbody>
              {p.users.map((u) => (
                <tr key={u.id} data-username={u.username}>
                  <td data-label={t("adminUsers.username")}>
                    <a href={userUrl(u.id)}>{u.username}</a>
                  </td>
                  <td data-label={t("adminUsers.displayName")}>{u.displayName}</td>
                  <td data-label={t("adminUsers.email")}>
                    <EmailOf ui={p.ui} user={u} />
                  </td>
                  <td data-label={t("adminUsers.admin")}>{yesNo(p.ui, u.admin)}</td>
                  <td data-label={t("adminUsers.disabled")}>{yesNo(p.ui, u.disabled)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p class="admin-pages">
          {p.later ? (
            <a href={`/admin/users?${new URLSearchParams(q)}`} rel="first">
              {t("adminUsers.first")}
            </a>
          ) : null}
          {p.later && p.next ? " · " : null}
          {p.next ? (
            <a href={`/admin/users?${new URLSearchParams({ ...q, after: p.next })}`} rel="next">
              {t("adminUsers.next")}
            </a>
          ) : null}
        </p>
      </Card>
    </Page>
  );
}

export interface UserDetails {
  user: UserRow & { createdAt: number };
  twoFactor: boolean;
  passkeys: string[];
  sessions: Array<{ id: string; browser?: string | undefined; address?: string | undefined; lastSeenAt: number }>;
  consents: string[];
  apps: string[];
  groups: string[];
  lastSignIn?: number | undefined;
}

function Names(p: { ui: Ui; names: string[]; class: string }) {
  if (p.names.length === 0) return <p class="muted">{p.ui.t("adminUsers.nothing")}</p>;
  return (
    <ul class={`list ${p.class}`}>
      {p.names.map((n, i) => (
        <li key={`${i}`}>{n}</li>
      ))}
    </ul>
  );
}

function Action(p: { action: string; label: string; csrf: string; danger?: boolean; method?: "get" }) {
  return (
    <form method={p.method ?? "post"} action={p.action}>
      {p.method ? null : <Csrf token={p.csrf} />}
      <button type="submit" class={p.danger ? "danger" : "secondary"}>
        {p.label}
      </button>
    </form>
  );
}

/** A user's page: profile, email, two-factor, passkeys, sessions, consents, apps, groups, last sign-in; the actions. */
export function AdminUserPage(p: {
  ui: Ui;
  user: Signed;
  csrf: string;
  details: UserDetails;
  notice?: string | undefined;
  problem?: FormProblem | undefined;
}) {
  const { t } = p.ui;
  const d = p.details;
  const u = d.user;
  const base = userUrl(u.id);
  const state = [u.admin ? t("adminUsers.admin") : "", u.disabled ? t("adminUsers.disabled") : t("adminUsers.active")]
    .filter(Boolean)
    .join(" · ");
  return (
    <Page ui={p.ui} title={u.username} user={p.user} csrf={p.csrf}>
      <Card>
        <p>
          <a href="/admin/users">{t("adminUsers.all")}</a>
        </p>
        <ErrorNote ui={p.ui} problem={p.problem} />
        {p.notice ? (
          <Notice>
            <p>{p.notice}</p>
          </Notice>
        ) : null}
        <dl class="admin-user">
          <dt>{t("adminUsers.profile")}</dt>
          <dd>
            {u.displayName} ({u.username})<br />
            <span class="muted">{t("adminUsers.created", { time: p.ui.date(u.createdAt) })}</span>
          </dd>
          <dt>{t("adminUsers.email")}</dt>
          <dd>
            <EmailOf ui={p.ui} user={u} />
          </dd>
          <dt>{t("adminUsers.state")}</dt>
          <dd class="admin-user-state">{state}</dd>
          <dt>{t("adminUsers.twoFactor")}</dt>
          <dd class="admin-user-2fa">{d.twoFactor ? t("adminUsers.on") : t("adminUsers.off")}</dd>
          <dt>{t("adminUsers.lastSignIn")}</dt>
          <dd class="admin-user-last">{d.lastSignIn ? p.ui.date(d.lastSignIn) : t("adminUsers.never")}</dd>
        </dl>
        <p>
          <a href={`/admin/audit?${new URLSearchParams({ username: u.username })}`} class="admin-user-activity">
            {t("adminAudit.allActivity")}
          </a>
        </p>
      </Card>
      <Card labelledBy="passkeys">
        <h2 id="passkeys">{t("adminUsers.passkeys")}</h2>
        <Names ui={p.ui} names={d.passkeys} class="admin-user-passkeys" />
      </Card>
      <Card labelledBy="sessions">
        <h2 id="sessions">{t("adminUsers.sessions")}</h2>
        {d.sessions.length === 0 ? (
          <p class="muted">{t("adminUsers.nothing")}</p>
        ) : (
          <ul class="list admin-user-sessions">
            {d.sessions.map((s) => (
              <li key={s.id}>
                <strong>{s.browser ?? t("sessions.unknownBrowser")}</strong>
                <br />
                <span class="muted">
                  {t("sessions.seen", { time: p.ui.date(s.lastSeenAt), address: s.address ?? "?" })}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card labelledBy="consents">
        <h2 id="consents">{t("adminUsers.consents")}</h2>
        <Names ui={p.ui} names={d.consents} class="admin-user-consents" />
      </Card>
      <Card labelledBy="apps">
        <h2 id="apps">{t("adminUsers.apps")}</h2>
        <Names ui={p.ui} names={d.apps} class="admin-user-apps" />
      </Card>
      <Card labelledBy="groups">
        <h2 id="groups">{t("adminUsers.groups")}</h2>
        <Names ui={p.ui} names={d.groups} class="admin-user-groups" />
      </Card>
      <Card labelledBy="actions">
        <h2 id="actions">{t("adminUsers.actions")}</h2>
        <div class="admin-user-actions">
          {u.disabled ? (
            <Action action={`${base}/enable`} label={t("adminUsers.enable")} csrf={p.csrf} />
          ) : (
            <Action action={`${base}/disable`} label={t("adminUsers.disable")} csrf={p.csrf} danger />
          )}
          <Action action={`${base}/signout`} label={t("adminUsers.signOut")} csrf={p.csrf} />
          <Action action={`${base}/reset-2fa`} label={t("adminUsers.resetTwoFactor")} csrf={p.csrf} />
          <Action action={`${base}/reset-mail`} label={t("adminUsers.resetMail")} csrf={p.csrf} />
          <Action action={`${base}/delete`} label={t("adminUsers.delete")} csrf={p.csrf} danger method="get" />
        </div>
      </Card>
    </Page>
  );
}

/** The confirm step before deleting a user. */
export function AdminUserDeletePage(p: { ui: Ui; user: Signed; csrf: string; target: UserRow }) {
  const { t } = p.ui;
  const base = userUrl(p.target.id);
  return (
    <Page ui={p.ui} title={t("adminUsers.deleteTitle", { name: p.target.username })} user={p.user} csrf={p.csrf} narrow>
      <Card>
        <p>{t("adminUsers.deleteLead")}</p>
        <ConfirmRemoval ui={p.ui} csrf={p.csrf} action={`${base}/delete`} label={t("adminUsers.delete")} back={base} />
      </Card>
    </Page>
  );
}
