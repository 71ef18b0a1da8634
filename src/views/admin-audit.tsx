// {auth_url}/admin/audit (docs/pages.md#administration, CONTRACT §14 "Audit log"): the filters (a
// GET form: types, username, since), one page of records newest first, and the way to the next
// page and back to the first. Each record's time is in the page's language with a machine-readable
// <time datetime>; its type a label in the page's language (audit-labels.ts).
import { AUDIT_TYPES } from "../domain/audit.js";
import { typeLabel } from "./audit-labels.js";
import { Card, ErrorNote, Page, type FormProblem, type Ui } from "./layout.js";

type Signed = { username: string; displayName: string };

/** A record as the page shows it: names resolved (actor, account, app) by the handler. */
export interface AuditRow {
  id: string;
  time: number;
  type: string;
  /** Who did it, already in words ("ada (administrator)", "the operator (command line)"). */
  actor?: string | undefined;
  /** The account: its id (a link while it exists) and its name. */
  account?: { id: string; name: string; exists: boolean } | undefined;
  app?: string | undefined;
  address?: string | undefined;
  browser?: string | undefined;
  how?: string | undefined;
  requestId?: string | undefined;
}

export interface AuditFilters {
  types: string[];
  username: string;
  since: string;
}

/** The query string of the filters (and a cursor): what the form and the page links carry. */
export function auditQuery(f: AuditFilters, cursor?: string): string {
  const q = new URLSearchParams();
  for (const t of f.types) q.append("type", t);
  if (f.username) q.set("username", f.username);
  if (f.since) q.set("since", f.since);
  if (cursor) q.set("cursor", cursor);
  return q.toString();
}

const userUrl = (id: string) => `/admin/users/${encodeURIComponent(id)}`;

export function AdminAuditPage(p: {
  ui: Ui;
  user: Signed;
  csrf: string;
  filters: AuditFilters;
  records: AuditRow[];
  /** The cursor of the next page, when there may be more. */
  next?: string | undefined;
  /** Whether this is a later page (a link back to the first). */
  later: boolean;
  problem?: FormProblem | undefined;
}) {
  const { t } = p.ui;
  const f = p.filters;
  const invalid = (field: string) => (p.problem?.field === field ? { "aria-invalid": "true" as const } : {});
  const first = auditQuery(f);
  return (
    <Page ui={p.ui} title={t("adminAudit.title")} user={p.user} csrf={p.csrf}>
      <Card>
        <p>
          <a href="/admin">{t("admin.title")}</a>
        </p>
        <p>{t("adminAudit.lead")}</p>
        <ErrorNote ui={p.ui} problem={p.problem} fields={["type", "username", "since"]} />
        <form method="get" action="/admin/audit" role="search" class="admin-audit-filters">
          <div class="field">
            <label for="type">{t("adminAudit.types")}</label>
            <select id="type" name="type" multiple size={6} {...invalid("type")}>
              {AUDIT_TYPES.map((type) => (
                <option key={type} value={type} selected={f.types.includes(type)}>
                  {typeLabel(p.ui, type)}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="username">{t("adminAudit.username")}</label>
            <input
              id="username"
              name="username"
              type="text"
              value={f.username}
              maxLength={200}
              {...invalid("username")}
            />
          </div>
          <div class="field">
            <label for="since">{t("adminAudit.since")}</label>
            <input id="since" name="since" type="datetime-local" step={1} value={f.since} {...invalid("since")} />
          </div>
          <button type="submit" class="secondary">
            {t("adminAudit.apply")}
          </button>{" "}
          <a href="/admin/audit">{t("adminAudit.clear")}</a>
        </form>
      </Card>
      <Card>
        {p.records.length === 0 ? (
          <p class="muted admin-audit-none">{t("adminAudit.none")}</p>
        ) : (
          <table class="admin-audit stack">
            <thead>
              <tr>
                <th scope="col">{t("adminAudit.time")}</th>
                <th scope="col">{t("adminAudit.type")}</th>
                <th scope="col">{t("adminAudit.actor")}</th>
                <th scope="col">{t("adminAudit.account")}</th>
                <th scope="col">{t("adminAudit.app")}</th>
                <th scope="col">{t("adminAudit.address")}</th>
                <th scope="col">{t("adminAudit.browser")}</th>
                <th scope="col">{t("adminAudit.how")}</th>
                <th scope="col">{t("adminAudit.request")}</th>
              </tr>
            </thead>
            <tbody>
              {p.records.map((r) => (
                <tr key={r.id} data-record={r.id} data-type={r.type}>
                  <td data-label={t("adminAudit.time")}>
                    <time datetime={new Date(r.time).toISOString()}>{p.ui.date(r.time)}</time>
                  </td>
                  <td data-label={t("adminAudit.type")}>{typeLabel(p.ui, r.type)}</td>
                  <td data-label={t("adminAudit.actor")}>{r.actor ?? ""}</td>
                  <td data-label={t("adminAudit.account")}>
                    {r.account ? (
                      r.account.exists ? (
                        <a href={userUrl(r.account.id)}>{r.account.name}</a>
                      ) : (
                        r.account.name
                      )
                    ) : (
                      ""
                    )}
                  </td>
                  <td data-label={t("adminAudit.app")}>{r.app ?? ""}</td>
                  <td data-label={t("adminAudit.address")}>{r.address ?? ""}</td>
                  <td data-label={t("adminAudit.browser")}>{r.browser ?? ""}</td>
                  <td data-label={t("adminAudit.how")}>{r.how ? <code>{r.how}</code> : ""}</td>
                  <td data-label={t("adminAudit.request")}>{r.requestId ? <code>{r.requestId}</code> : ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p class="admin-pages">
          {p.later ? (
            <a href={`/admin/audit?${first}`} rel="first">
              {t("adminUsers.first")}
            </a>
          ) : null}
          {p.later && p.next ? " · " : null}
          {p.next ? (
            <a href={`/admin/audit?${auditQuery(f, p.next)}`} rel="next">
              {t("adminUsers.next")}
            </a>
          ) : null}
        </p>
      </Card>
    </Page>
  );
}
