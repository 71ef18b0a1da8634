// {auth_url}/admin/groups and /admin/groups/:name (docs/pages.md#administration, CONTRACT §14
// "Groups"): the groups with their member counts and a form to create one, a group's page with its
// members (add by username, remove), and the confirm step before deleting a group.
import { Card, ConfirmRemoval, Csrf, ErrorNote, Field, Page, Said, type FormProblem, type Ui } from "./layout.js";

type Signed = { username: string; displayName: string };

const groupUrl = (name: string) => `/admin/groups/${encodeURIComponent(name)}`;

/** Every group, how many members each has, and the form to create one. */
export function AdminGroupsPage(p: {
  ui: Ui;
  user: Signed;
  csrf: string;
  groups: Array<{ name: string; members: number }>;
  notice?: string | undefined;
  problem?: FormProblem | undefined;
  /** The name as typed, when it was refused. */
  typed?: string | undefined;
}) {
  const { t } = p.ui;
  return (
    <Page ui={p.ui} title={t("adminGroups.title")} user={p.user} csrf={p.csrf}>
      <Card>
        <p>
          <a href="/admin">{t("admin.title")}</a>
        </p>
        <ErrorNote ui={p.ui} problem={p.problem} fields={["name"]} />
        <Said notice={p.notice} />
        {p.groups.length === 0 ? (
          <p class="muted">{t("adminGroups.none")}</p>
        ) : (
          <table class="admin-group-list stack">
            <thead>
              <tr>
                <th scope="col">{t("adminGroups.name")}</th>
                <th scope="col">{t("adminGroups.members")}</th>
              </tr>
            </thead>
            <tbody>
              {p.groups.map((g) => (
                <tr key={g.name} data-group={g.name}>
                  <td data-label={t("adminGroups.name")}>
                    <a href={groupUrl(g.name)}>{g.name}</a>
                  </td>
                  <td data-label={t("adminGroups.members")}>{p.ui.number(g.members)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Card>
      <Card labelledBy="create">
        <h2 id="create">{t("adminGroups.create")}</h2>
        <form method="post" action="/admin/groups">
          <Csrf token={p.csrf} />
          <Field
            id="name"
            name="name"
            label={t("adminGroups.name")}
            hint={t("adminGroups.nameRule")}
            problem={p.problem}
            control={(a) => (
              <input {...a} type="text" name="name" required maxLength={64} spellcheck={false} value={p.typed ?? ""} />
            )}
          />
          <button type="submit">{t("adminGroups.createButton")}</button>
        </form>
      </Card>
    </Page>
  );
}

/** A group's page: its members, the form to add one, a remove button each, the way to delete it. */
export function AdminGroupPage(p: {
  ui: Ui;
  user: Signed;
  csrf: string;
  group: { name: string; members: Array<{ id: string; username: string }> };
  notice?: string | undefined;
  problem?: FormProblem | undefined;
}) {
  const { t } = p.ui;
  const base = groupUrl(p.group.name);
  return (
    <Page ui={p.ui} title={t("adminGroups.groupTitle", { name: p.group.name })} user={p.user} csrf={p.csrf}>
      <Card>
        <p>
          <a href="/admin/groups">{t("adminGroups.all")}</a>
        </p>
        <ErrorNote ui={p.ui} problem={p.problem} fields={["username"]} />
        <Said notice={p.notice} />
        <h2 id="members">{t("adminGroups.members")}</h2>
        {p.group.members.length === 0 ? (
          <p class="muted">{t("adminGroups.noMembers")}</p>
        ) : (
          <ul class="list admin-group-members" aria-labelledby="members">
            {p.group.members.map((m) => (
              <li key={m.id} data-username={m.username}>
                <a href={`/admin/users/${encodeURIComponent(m.id)}`}>{m.username}</a>
                <form method="post" action={`${base}/remove`}>
                  <Csrf token={p.csrf} />
                  <input type="hidden" name="user" value={m.id} />
                  <button
                    type="submit"
                    class="secondary"
                    aria-label={t("adminGroups.removeNamed", { name: m.username })}
                  >
                    {t("adminGroups.remove")}
                  </button>
                </form>
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card labelledBy="add">
        <h2 id="add">{t("adminGroups.add")}</h2>
        <form method="post" action={`${base}/members`}>
          <Csrf token={p.csrf} />
          <Field
            id="username"
            name="username"
            label={t("adminUsers.username")}
            problem={p.problem}
            control={(a) => (
              <input {...a} type="text" name="username" required maxLength={64} autocomplete="off" spellcheck={false} />
            )}
          />
          <button type="submit">{t("adminGroups.addButton")}</button>
        </form>
      </Card>
      <Card labelledBy="danger">
        <h2 id="danger">{t("adminGroups.delete")}</h2>
        <form method="get" action={`${base}/delete`}>
          <button type="submit" class="danger">
            {t("adminGroups.delete")}
          </button>
        </form>
      </Card>
    </Page>
  );
}

/** The confirm step before deleting a group. */
export function AdminGroupDeletePage(p: { ui: Ui; user: Signed; csrf: string; name: string; members: number }) {
  const { t } = p.ui;
  const base = groupUrl(p.name);
  return (
    <Page ui={p.ui} title={t("adminGroups.deleteTitle", { name: p.name })} user={p.user} csrf={p.csrf} narrow>
      <Card>
        <p>{t("adminGroups.deleteLead", { count: p.members })}</p>
        <ConfirmRemoval ui={p.ui} csrf={p.csrf} action={`${base}/delete`} label={t("adminGroups.delete")} back={base} />
      </Card>
    </Page>
  );
}
