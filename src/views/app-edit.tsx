// Editing an app on the developers console (docs/pages.md#developers): its name, redirect URLs,
// post-logout URLs and homepage; the client id, secret, consents and tokens stay. The admin's app
// page (/admin/apps/:clientId) shows the same form, sent to its own action.
import type { AppRecord } from "../store/port.js";
import { Csrf, Field, type FormProblem, type Ui } from "./layout.js";

/** The edit form as it was sent, when it was refused. */
export interface EditForm {
  clientId: string;
  name: string;
  redirectUris: string;
  postLogoutRedirectUris: string;
  homepage: string;
}

export function AppEditForm(p: {
  ui: Ui;
  app: AppRecord;
  csrf: string;
  /** The refused form for this app, and why. */
  form?: EditForm | undefined;
  error?: FormProblem | undefined;
  /** Where the form goes (the owner's: /developers/:clientId/edit; an admin's: /admin/apps/:clientId/edit). */
  action?: string | undefined;
  /** Shown open (the admin's app page). */
  open?: boolean | undefined;
}) {
  const { t } = p.ui;
  const id = (f: string) => `edit-${f}-${p.app.clientId}`;
  const v = p.form ?? {
    name: p.app.name,
    redirectUris: p.app.redirectUris.join("\n"),
    postLogoutRedirectUris: (p.app.postLogoutRedirectUris ?? []).join("\n"),
    homepage: p.app.homepage ?? "",
  };
  return (
    <details class="app-edit" open={p.open === true || p.form !== undefined}>
      <summary>{t("dev.edit")}</summary>
      <form method="post" action={p.action ?? `/developers/${encodeURIComponent(p.app.clientId)}/edit`}>
        <Csrf token={p.csrf} />
        <Field
          id={id("name")}
          name="name"
          label={t("dev.name")}
          problem={p.error}
          control={(a) => <input {...a} type="text" name="name" required maxLength={64} value={v.name} />}
        />
        <Field
          id={id("redirect_uri")}
          name="redirect_uri"
          label={t("dev.redirects")}
          hint={t("dev.redirectsHint")}
          problem={p.error}
          control={(a) => (
            <textarea {...a} name="redirect_uri" rows={3} required spellcheck={false}>
              {v.redirectUris}
            </textarea>
          )}
        />
        <Field
          id={id("post_logout_redirect_uri")}
          name="post_logout_redirect_uri"
          label={t("dev.postLogout")}
          hint={t("dev.postLogoutHint")}
          problem={p.error}
          control={(a) => (
            <textarea {...a} name="post_logout_redirect_uri" rows={2} spellcheck={false}>
              {v.postLogoutRedirectUris}
            </textarea>
          )}
        />
        <Field
          id={id("homepage")}
          name="homepage"
          label={t("dev.homepage")}
          hint={t("dev.homepageHint")}
          problem={p.error}
          control={(a) => <input {...a} type="url" name="homepage" maxLength={2000} value={v.homepage} />}
        />
        <button type="submit">{t("dev.editSubmit")}</button>
      </form>
    </details>
  );
}
