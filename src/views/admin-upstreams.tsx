// {auth_url}/admin/upstreams (docs/pages.md#administration, docs/upstream-providers.md#on-admin):
// the other sign-in services ("Continue with …"): those the settings name (read-only), those added
// here with their callback address, the form to add one, a provider's page to change it, and the
// confirm step before removing one (how many accounts are linked through it).
import { Card, ConfirmRemoval, Csrf, ErrorNote, Field, Page, Said, type FormProblem, type Ui } from "./layout.js";

type Signed = { username: string; displayName: string };

/** One provider as the pages show it (never its secret). */
export interface UpstreamRow {
  id: string;
  kind: "oidc" | "github";
  name: string;
  issuer: string;
  apiUrl?: string | undefined;
  clientId: string;
  callback: string;
  /** Stored only: its secret cannot be opened with this SECRET; the settings name its id too. */
  unreadable?: boolean;
  shadowed?: boolean;
}

/** What the add form was sent with, shown again when it is refused (never the secret). */
export type UpstreamTyped = Partial<Record<"id" | "kind" | "name" | "issuer" | "api_url" | "client_id", string>>;

const FIELDS = ["id", "kind", "name", "issuer", "api_url", "client_id", "client_secret"] as const;
const upstreamUrl = (id: string) => `/admin/upstreams/${encodeURIComponent(id)}`;

function Details(p: { ui: Ui; u: UpstreamRow }) {
  const { t } = p.ui;
  return (
    <dl class="upstream-details">
      <dt>{t("adminUpstreams.kind")}</dt>
      <dd>{p.u.kind === "github" ? t("adminUpstreams.kindGithub") : t("adminUpstreams.kindOidc")}</dd>
      <dt>{t("adminUpstreams.issuer")}</dt>
      <dd>
        <code>{p.u.issuer}</code>
      </dd>
      {p.u.apiUrl ? (
        <>
          <dt>{t("adminUpstreams.apiUrl")}</dt>
          <dd>
            <code>{p.u.apiUrl}</code>
          </dd>
        </>
      ) : null}
      <dt>{t("adminUpstreams.clientId")}</dt>
      <dd>
        <code>{p.u.clientId}</code>
      </dd>
      <dt>{t("adminUpstreams.callback")}</dt>
      <dd>
        <code class="upstream-callback">{p.u.callback}</code>
      </dd>
    </dl>
  );
}

/** The providers (the settings' first, read-only), and the form to add one. */
export function AdminUpstreamsPage(p: {
  ui: Ui;
  user: Signed;
  csrf: string;
  fromSettings: UpstreamRow[];
  stored: UpstreamRow[];
  /** {auth_url}/upstream/<id>/callback, as the form explains it. */
  callbackPattern: string;
  notice?: string | undefined;
  problem?: FormProblem | undefined;
  typed?: UpstreamTyped | undefined;
}) {
  const { t } = p.ui;
  const typed = p.typed ?? {};
  return (
    <Page ui={p.ui} title={t("adminUpstreams.title")} user={p.user} csrf={p.csrf}>
      <Card>
        <p>
          <a href="/admin">{t("admin.title")}</a>
        </p>
        <ErrorNote ui={p.ui} problem={p.problem} fields={FIELDS} />
        <Said notice={p.notice} />
        <p>{t("adminUpstreams.lead")}</p>
        {p.fromSettings.length + p.stored.length === 0 ? <p class="muted">{t("adminUpstreams.none")}</p> : null}
        <ul class="list admin-upstreams">
          {p.fromSettings.map((u) => (
            <li key={u.id} data-upstream={u.id} data-from="settings">
              <h2>{u.name}</h2>
              <p class="muted">{t("adminUpstreams.fromSettings")}</p>
              <Details ui={p.ui} u={u} />
            </li>
          ))}
          {p.stored.map((u) => (
            <li key={u.id} data-upstream={u.id} data-from="admin">
              <h2>{u.name}</h2>
              {u.shadowed ? <p class="muted">{t("adminUpstreams.shadowed")}</p> : null}
              {u.unreadable ? <p class="field-error">{t("adminUpstreams.unreadable")}</p> : null}
              <Details ui={p.ui} u={u} />
              <p>
                <a href={upstreamUrl(u.id)} aria-label={t("adminUpstreams.editNamed", { name: u.name })}>
                  {t("adminUpstreams.edit")}
                </a>
              </p>
            </li>
          ))}
        </ul>
      </Card>
      <Card labelledBy="add">
        <h2 id="add">{t("adminUpstreams.add")}</h2>
        <p class="muted">{t("adminUpstreams.callbackNote", { callback: p.callbackPattern })}</p>
        <form method="post" action="/admin/upstreams">
          <Csrf token={p.csrf} />
          <fieldset aria-describedby={p.problem?.field === "kind" ? "kind-error" : undefined}>
            <legend>{t("adminUpstreams.kind")}</legend>
            <div class="check">
              <input type="radio" name="kind" value="oidc" id="kind" checked={typed.kind !== "github"} />
              <label for="kind">{t("adminUpstreams.kindOidc")}</label>
            </div>
            <div class="check">
              <input type="radio" name="kind" value="github" id="kind-github" checked={typed.kind === "github"} />
              <label for="kind-github">{t("adminUpstreams.kindGithub")}</label>
            </div>
            {p.problem?.field === "kind" ? (
              <p class="field-error" id="kind-error">
                {p.problem.text}
              </p>
            ) : null}
          </fieldset>
          <Text ui={p.ui} field="id" problem={p.problem} value={typed.id} required max={32} />
          <Text ui={p.ui} field="name" problem={p.problem} value={typed.name} max={40} />
          <Text ui={p.ui} field="issuer" problem={p.problem} value={typed.issuer} type="url" />
          <Text ui={p.ui} field="api_url" problem={p.problem} value={typed.api_url} type="url" />
          <Text ui={p.ui} field="client_id" problem={p.problem} value={typed.client_id} required />
          <Text ui={p.ui} field="client_secret" problem={p.problem} required type="password" />
          <button type="submit">{t("adminUpstreams.addButton")}</button>
        </form>
      </Card>
    </Page>
  );
}

const LABEL = {
  id: ["adminUpstreams.id", "adminUpstreams.idRule"],
  name: ["adminUpstreams.name", "adminUpstreams.nameRule"],
  issuer: ["adminUpstreams.issuer", "adminUpstreams.issuerRule"],
  api_url: ["adminUpstreams.apiUrl", "adminUpstreams.apiUrlRule"],
  client_id: ["adminUpstreams.clientId", undefined],
  client_secret: ["adminUpstreams.clientSecret", "adminUpstreams.secretRule"],
} as const;

/** One text field of the forms (its label and rule from LABEL). */
function Text(p: {
  ui: Ui;
  field: keyof typeof LABEL;
  problem?: FormProblem | undefined;
  value?: string | undefined;
  required?: boolean;
  max?: number;
  type?: "url" | "password";
  hint?: string;
}) {
  const [label, rule] = LABEL[p.field];
  const hint = p.hint ?? (rule ? p.ui.t(rule) : undefined);
  return (
    <Field
      id={p.field}
      name={p.field}
      label={p.ui.t(label)}
      hint={hint}
      problem={p.problem}
      control={(a) => (
        <input
          {...a}
          // One control for three kinds (preact types each input type apart).
          type={(p.type ?? "text") as "text"}
          name={p.field}
          required={p.required}
          maxLength={p.max ?? 512}
          autocomplete="off"
          spellcheck={false}
          value={p.type === "password" ? "" : (p.value ?? "")}
        />
      )}
    />
  );
}

/** A stored provider's page: what it is, the form to change it, the way to remove it. */
export function AdminUpstreamPage(p: {
  ui: Ui;
  user: Signed;
  csrf: string;
  upstream: UpstreamRow;
  notice?: string | undefined;
  problem?: FormProblem | undefined;
  typed?: UpstreamTyped | undefined;
}) {
  const { t } = p.ui;
  const u = p.upstream;
  const base = upstreamUrl(u.id);
  const typed = p.typed ?? {};
  return (
    <Page ui={p.ui} title={t("adminUpstreams.editTitle", { name: u.name })} user={p.user} csrf={p.csrf}>
      <Card>
        <p>
          <a href="/admin/upstreams">{t("adminUpstreams.all")}</a>
        </p>
        <ErrorNote ui={p.ui} problem={p.problem} fields={FIELDS} />
        <Said notice={p.notice} />
        {u.unreadable ? <p class="field-error">{t("adminUpstreams.unreadable")}</p> : null}
        <Details ui={p.ui} u={u} />
        <p class="muted">{t("adminUpstreams.callbackNote", { callback: u.callback })}</p>
      </Card>
      <Card labelledBy="change">
        <h2 id="change">{t("adminUpstreams.edit")}</h2>
        <form method="post" action={base}>
          <Csrf token={p.csrf} />
          <Text ui={p.ui} field="name" problem={p.problem} value={typed.name ?? u.name} max={40} required />
          {u.kind === "oidc" ? (
            <Text ui={p.ui} field="issuer" problem={p.problem} value={typed.issuer ?? u.issuer} type="url" required />
          ) : null}
          <Text ui={p.ui} field="client_id" problem={p.problem} value={typed.client_id ?? u.clientId} required />
          <Text
            ui={p.ui}
            field="client_secret"
            problem={p.problem}
            type="password"
            hint={`${t("adminUpstreams.secretRule")} ${t("adminUpstreams.secretKeep")}`}
          />
          <button type="submit">{t("adminUpstreams.save")}</button>
        </form>
      </Card>
      <Card labelledBy="danger">
        <h2 id="danger">{t("adminUpstreams.remove")}</h2>
        <form method="get" action={`${base}/remove`}>
          <button type="submit" class="danger" aria-label={t("adminUpstreams.removeNamed", { name: u.name })}>
            {t("adminUpstreams.remove")}
          </button>
        </form>
      </Card>
    </Page>
  );
}

/** The confirm step before removing a provider: how many accounts are linked through it. */
export function AdminUpstreamRemovePage(p: {
  ui: Ui;
  user: Signed;
  csrf: string;
  id: string;
  name: string;
  accounts: number;
  onlyWay: number;
}) {
  const { t } = p.ui;
  const base = upstreamUrl(p.id);
  return (
    <Page ui={p.ui} title={t("adminUpstreams.removeTitle", { name: p.name })} user={p.user} csrf={p.csrf} narrow>
      <Card>
        <p class="upstream-linked">{t("adminUpstreams.removeLead", { count: p.accounts, id: p.id })}</p>
        {p.onlyWay > 0 ? (
          <div class="error" role="alert">
            <p class="upstream-only-way">{t("adminUpstreams.onlyWay", { count: p.onlyWay })}</p>
          </div>
        ) : null}
        <ConfirmRemoval
          ui={p.ui}
          csrf={p.csrf}
          action={`${base}/remove`}
          label={t("adminUpstreams.remove")}
          back={base}
        />
      </Card>
    </Page>
  );
}
