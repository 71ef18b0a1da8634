// {auth_url}/admin/apps and /admin/apps/:clientId (docs/pages.md#administration, CONTRACT §14
// "Apps"): the list of apps with a search box and pages of 50, and an app's page with what it is
// and the admin's forms (edit, first-party, disabled, groups; each needs "Confirm it's you").
import type { AppRecord } from "../store/port.js";
import { AppEditForm, type EditForm } from "./app-edit.js";
import { Card, Csrf, ErrorNote, Notice, Page, type FormProblem, type Ui } from "./layout.js";

type Signed = { username: string; displayName: string };

export interface AppRow {
  clientId: string;
  name: string;
  owner: string | null;
  trusted: boolean;
  disabled: boolean;
  groups: string[];
}

const appUrl = (clientId: string) => `/admin/apps/${encodeURIComponent(clientId)}`;

/** The marks of an app: first-party, disabled, its groups ("" when none). */
function marks(ui: Ui, a: { trusted: boolean; disabled: boolean; groups: string[] }): string {
  const { t } = ui;
  return [
    a.trusted ? t("adminApps.trusted") : "",
    a.disabled ? t("adminApps.disabled") : "",
    a.groups.length ? t("adminApps.groupsOnly", { groups: a.groups.join(", ") }) : "",
  ]
    .filter(Boolean)
    .join(" · ");
}

/** The list: search box, one page of apps, the way to the next page and back to the first. */
export function AdminAppsPage(p: {
  ui: Ui;
  user: Signed;
  csrf: string;
  query: string;
  apps: AppRow[];
  /** The cursor of the next page (the last client id shown), when there may be more. */
  next?: string | undefined;
  later: boolean;
  problem?: FormProblem | undefined;
}) {
  const { t } = p.ui;
  const q: Record<string, string> = p.query ? { q: p.query } : {};
  return (
    <Page ui={p.ui} title={t("adminApps.title")} user={p.user} csrf={p.csrf}>
      <Card>
        <p>
          <a href="/admin">{t("admin.title")}</a>
        </p>
        <ErrorNote ui={p.ui} problem={p.problem} fields={["q"]} />
        <form method="get" action="/admin/apps" role="search">
          <div class="field">
            <label for="q">{t("adminApps.search")}</label>
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
        {p.apps.length === 0 ? (
          <p class="muted">{t("adminApps.none")}</p>
        ) : (
          <table class="admin-app-list stack">
            <thead>
              <tr>
                <th scope="col">{t("adminApps.name")}</th>
                <th scope="col">{t("adminApps.clientId")}</th>
                <th scope="col">{t("adminApps.owner")}</th>
                <th scope="col">{t("adminApps.marks")}</th>
              </tr>
            </thead>
            <tbody>
              {p.apps.map((a) => (
                <tr key={a.clientId} data-client-id={a.clientId}>
                  <td data-label={t("adminApps.name")}>
                    <a href={appUrl(a.clientId)}>{a.name}</a>
                  </td>
                  <td data-label={t("adminApps.clientId")}>
                    <code>{a.clientId}</code>
                  </td>
                  <td data-label={t("adminApps.owner")}>{a.owner ?? t("adminApps.noOwner")}</td>
                  <td data-label={t("adminApps.marks")}>{marks(p.ui, a)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p class="admin-pages">
          {p.later ? (
            <a href={`/admin/apps?${new URLSearchParams(q)}`} rel="first">
              {t("adminUsers.first")}
            </a>
          ) : null}
          {p.later && p.next ? " · " : null}
          {p.next ? (
            <a href={`/admin/apps?${new URLSearchParams({ ...q, after: p.next })}`} rel="next">
              {t("adminUsers.next")}
            </a>
          ) : null}
        </p>
      </Card>
    </Page>
  );
}

function Urls(p: { ui: Ui; urls: string[]; class: string }) {
  if (p.urls.length === 0) return <span class="muted">{p.ui.t("adminUsers.nothing")}</span>;
  return (
    <ul class={`list ${p.class}`}>
      {p.urls.map((u, i) => (
        <li key={`${i}`}>
          <code>{u}</code>
        </li>
      ))}
    </ul>
  );
}

/** A form that sets a mark on or off. */
function Toggle(p: { action: string; csrf: string; on: boolean; label: string; danger?: boolean }) {
  return (
    <form method="post" action={p.action}>
      <Csrf token={p.csrf} />
      <input type="hidden" name="value" value={p.on ? "on" : "off"} />
      <button type="submit" class={p.danger ? "danger" : "secondary"}>
        {p.label}
      </button>
    </form>
  );
}

/** An app's page: what it is, and the admin's forms. */
export function AdminAppPage(p: {
  ui: Ui;
  user: Signed;
  csrf: string;
  app: AppRecord;
  owner: string | null;
  /** Every group's name (the restriction's choices). */
  groups: string[];
  notice?: string | undefined;
  /** A refused edit (with the form as sent) or mark. */
  problem?: FormProblem | undefined;
  editForm?: EditForm | undefined;
  groupsProblem?: FormProblem | undefined;
}) {
  const { t } = p.ui;
  const a = p.app;
  const base = appUrl(a.clientId);
  const chosen = new Set(a.groups ?? []);
  return (
    <Page ui={p.ui} title={a.name} user={p.user} csrf={p.csrf}>
      <Card>
        <p>
          <a href="/admin/apps">{t("adminApps.all")}</a>
        </p>
        <ErrorNote ui={p.ui} problem={p.problem ?? p.groupsProblem} />
        {p.notice ? (
          <Notice>
            <p>{p.notice}</p>
          </Notice>
        ) : null}
        <dl class="admin-app">
          <dt>{t("adminApps.clientId")}</dt>
          <dd>
            <code class="client-id">{a.clientId}</code>
          </dd>
          <dt>{t("adminApps.owner")}</dt>
          <dd class="admin-app-owner">{p.owner ?? t("adminApps.noOwner")}</dd>
          <dt>{t("adminApps.created")}</dt>
          <dd>{p.ui.date(a.createdAt)}</dd>
          <dt>{t("dev.redirects")}</dt>
          <dd>
            <Urls ui={p.ui} urls={a.redirectUris} class="admin-app-redirects" />
          </dd>
          <dt>{t("dev.postLogout")}</dt>
          <dd>
            <Urls ui={p.ui} urls={a.postLogoutRedirectUris ?? []} class="admin-app-post-logout" />
          </dd>
          <dt>{t("dev.homepage")}</dt>
          <dd>{a.homepage ? <code>{a.homepage}</code> : <span class="muted">{t("adminUsers.nothing")}</span>}</dd>
          <dt>{t("adminApps.trustedTerm")}</dt>
          <dd class="admin-app-trusted">{a.trusted ? t("adminUsers.yes") : t("adminUsers.no")}</dd>
          <dt>{t("adminApps.disabled")}</dt>
          <dd class="admin-app-disabled">{a.disabled ? t("adminUsers.yes") : t("adminUsers.no")}</dd>
          <dt>{t("adminApps.groups")}</dt>
          <dd class="admin-app-groups">{a.groups?.length ? a.groups.join(", ") : t("adminApps.everyone")}</dd>
          <dt>{t("adminApps.m2m")}</dt>
          <dd class="admin-app-m2m">{a.m2mScopes?.length ? a.m2mScopes.join(" ") : t("adminApps.m2mNone")}</dd>
        </dl>
      </Card>
      <Card labelledBy="edit">
        <h2 id="edit">{t("dev.edit")}</h2>
        <AppEditForm
          ui={p.ui}
          app={a}
          csrf={p.csrf}
          form={p.editForm}
          error={p.editForm ? p.problem : undefined}
          action={`${base}/edit`}
          open
        />
      </Card>
      <Card labelledBy="marks">
        <h2 id="marks">{t("adminApps.marks")}</h2>
        <p class="muted">{t("adminApps.trustedHint")}</p>
        <div class="admin-app-actions">
          <Toggle
            action={`${base}/trusted`}
            csrf={p.csrf}
            on={!a.trusted}
            label={a.trusted ? t("adminApps.untrust") : t("adminApps.trust")}
          />
          <Toggle
            action={`${base}/disabled`}
            csrf={p.csrf}
            on={!a.disabled}
            label={a.disabled ? t("adminApps.enable") : t("adminApps.disable")}
            danger={!a.disabled}
          />
        </div>
      </Card>
      <Card labelledBy="restrict">
        <h2 id="restrict">{t("adminApps.groups")}</h2>
        <form method="post" action={`${base}/groups`}>
          <Csrf token={p.csrf} />
          <fieldset>
            <legend>{t("adminApps.groupsLead")}</legend>
            {p.groups.length === 0 ? <p class="muted">{t("adminApps.noGroups")}</p> : null}
            {p.groups.map((g) => (
              <div class="check" key={g}>
                <input type="checkbox" id={`group-${g}`} name="group" value={g} checked={chosen.has(g)} />
                <label for={`group-${g}`}>{g}</label>
              </div>
            ))}
          </fieldset>
          <button type="submit" class="secondary">
            {t("adminApps.saveGroups")}
          </button>
        </form>
      </Card>
      <Card labelledBy="m2m">
        <h2 id="m2m">{t("adminApps.m2m")}</h2>
        <form method="post" action={`${base}/m2m`}>
          <Csrf token={p.csrf} />
          <p class="muted" id="m2m-lead">
            {t("adminApps.m2mLead")}
          </p>
          <label for="m2m-scopes">{t("adminApps.m2mScopes")}</label>
          <input
            type="text"
            id="m2m-scopes"
            name="scopes"
            value={(a.m2mScopes ?? []).join(" ")}
            maxLength={2000}
            aria-describedby="m2m-lead"
            autocomplete="off"
          />
          <button type="submit" class="secondary">
            {t("adminApps.saveM2m")}
          </button>
        </form>
      </Card>
    </Page>
  );
}
