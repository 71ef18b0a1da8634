// {auth_url}/admin/invitations (docs/pages.md#invitations, CONTRACT §14 "Sign-up policy"): the form
// that makes an invitation link (shown once, right after it is made), and the pending invitations
// (who made each, when, when it ends, its address if bound — never the link) with a revoke button.
import { Card, Csrf, EmailField, ErrorNote, Notice, Page, type FormProblem, type Ui } from "./layout.js";

type Signed = { username: string; displayName: string };

export interface InvitationRow {
  id: string;
  email?: string | undefined;
  /** The maker's username (or the operator's words). */
  createdBy: string;
  createdAt: number;
  expiresAt: number;
}

export function AdminInvitationsPage(p: {
  ui: Ui;
  user: Signed;
  csrf: string;
  invitations: InvitationRow[];
  /** Whether SIGNUP is invite (otherwise the page says the links do not work now). */
  inviteMode: boolean;
  /** The link just made: shown this once. */
  link?: string | undefined;
  notice?: string | undefined;
  problem?: FormProblem | undefined;
  email?: string | undefined;
}) {
  const { t } = p.ui;
  return (
    <Page ui={p.ui} title={t("adminInvitations.title")} user={p.user} csrf={p.csrf}>
      <p>
        <a href="/admin">{t("admin.title")}</a>
      </p>
      <p class="lead">{t("adminInvitations.lead")}</p>
      {p.inviteMode ? null : (
        <div class="error" role="note">
          <p>{t("adminInvitations.notInviteMode")}</p>
        </div>
      )}
      {p.link ? (
        <Notice>
          <p>{t("adminInvitations.created")}</p>
          <p>
            <label for="invitation-link">{t("adminInvitations.link")}</label>
            <input id="invitation-link" type="text" readonly value={p.link} class="wide" />
          </p>
        </Notice>
      ) : null}
      {p.notice ? (
        <Notice>
          <p>{p.notice}</p>
        </Notice>
      ) : null}
      <ErrorNote ui={p.ui} problem={p.problem} fields={["email"]} />
      <Card>
        <h2>{t("adminInvitations.newTitle")}</h2>
        <form method="post" action="/admin/invitations">
          <Csrf token={p.csrf} />
          <EmailField
            label={t("adminInvitations.email")}
            hint={t("adminInvitations.emailHint")}
            value={p.email ?? ""}
            problem={p.problem}
          />
          <button type="submit">{t("adminInvitations.create")}</button>
        </form>
      </Card>
      <Card>
        <h2>{t("adminInvitations.pending")}</h2>
        {p.invitations.length === 0 ? (
          <p class="muted">{t("adminInvitations.none")}</p>
        ) : (
          <table class="admin-user-list stack">
            <thead>
              <tr>
                <th scope="col">{t("adminInvitations.for")}</th>
                <th scope="col">{t("adminInvitations.createdBy")}</th>
                <th scope="col">{t("adminInvitations.createdAt")}</th>
                <th scope="col">{t("adminInvitations.expires")}</th>
                <th scope="col">
                  <span class="visually-hidden">{t("adminInvitations.revoke")}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {p.invitations.map((i) => (
                <tr key={i.id} data-invitation={i.id}>
                  <td data-label={t("adminInvitations.for")}>
                    {i.email ?? <span class="muted">{t("adminInvitations.anyone")}</span>}
                  </td>
                  <td data-label={t("adminInvitations.createdBy")}>{i.createdBy}</td>
                  <td data-label={t("adminInvitations.createdAt")}>{p.ui.date(i.createdAt)}</td>
                  <td data-label={t("adminInvitations.expires")}>{p.ui.date(i.expiresAt)}</td>
                  <td>
                    <form method="post" action={`/admin/invitations/${encodeURIComponent(i.id)}/revoke`}>
                      <Csrf token={p.csrf} />
                      <button
                        type="submit"
                        class="secondary"
                        aria-label={t("adminInvitations.revokeLabel", { time: p.ui.date(i.createdAt) })}
                      >
                        {t("adminInvitations.revoke")}
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
    </Page>
  );
}
