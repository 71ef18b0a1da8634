// "Recent activity" (docs/pages.md#the-account-page, CONTRACT §14 "Audit log"): the signed-in
// user's own security events — the last 10 on /account, and /account/activity in pages of 50.
// Each shows when, what, the browser and the address; an admin's action says "by an
// administrator", never which one (docs/choices.md).
import { typeLabel } from "./audit-labels.js";
import { Card, ErrorNote, Page, type FormProblem, type Ui } from "./layout.js";

export interface ActivityRow {
  id: string;
  time: number;
  type: string;
  browser?: string | undefined;
  address?: string | undefined;
  /** Done to the account by someone else: an administrator, or the operator (the command line). */
  by?: "admin" | "operator" | undefined;
}

function ActivityList(p: { ui: Ui; rows: ActivityRow[] }) {
  const { t } = p.ui;
  if (p.rows.length === 0) return <p class="muted activity-none">{t("activity.none")}</p>;
  return (
    <ul class="list activity">
      {p.rows.map((r) => (
        <li key={r.id} data-record={r.id} data-type={r.type}>
          <strong>{typeLabel(p.ui, r.type)}</strong>
          {r.by === "admin"
            ? ` (${t("activity.byAdmin")})`
            : r.by === "operator"
              ? ` (${t("activity.byOperator")})`
              : ""}
          <br />
          <span class="muted">
            <time datetime={new Date(r.time).toISOString()}>{p.ui.date(r.time)}</time>
            {" · "}
            {r.browser ?? t("sessions.unknownBrowser")}
            {r.address ? ` · ${r.address}` : ""}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** The card on /account: the last few, and the link to the rest. */
export function AccountActivity(p: { ui: Ui; rows: ActivityRow[] }) {
  const { t } = p.ui;
  return (
    <Card labelledBy="activity">
      <h2 id="activity">{t("activity.title")}</h2>
      <p>{t("activity.lead")}</p>
      <ActivityList ui={p.ui} rows={p.rows} />
      <p>
        <a href="/account/activity">{t("activity.more")}</a>
      </p>
    </Card>
  );
}

/** /account/activity: one page of the user's activity, with older / newest links. */
export function AccountActivityPage(p: {
  ui: Ui;
  user: { username: string };
  csrf: string;
  rows: ActivityRow[];
  next?: string | undefined;
  later: boolean;
  problem?: FormProblem | undefined;
}) {
  const { t } = p.ui;
  return (
    <Page ui={p.ui} title={t("activity.pageTitle")} user={p.user} csrf={p.csrf} current="account">
      <Card>
        <p>
          <a href="/account">{t("activity.back")}</a>
        </p>
        <ErrorNote ui={p.ui} problem={p.problem} />
        <p>{t("activity.lead")}</p>
        <ActivityList ui={p.ui} rows={p.rows} />
        <p class="activity-pages">
          {p.later ? (
            <a href="/account/activity" rel="first">
              {t("activity.newest")}
            </a>
          ) : null}
          {p.later && p.next ? " · " : null}
          {p.next ? (
            <a href={`/account/activity?${new URLSearchParams({ cursor: p.next })}`} rel="next">
              {t("activity.older")}
            </a>
          ) : null}
        </p>
      </Card>
    </Page>
  );
}
