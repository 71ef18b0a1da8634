// The passkeys section of /account (docs/http-api.md#passkeys): the list (added, last used) with
// rename and remove forms that work without JavaScript, and "Add a passkey", which needs the
// WebAuthn API: the page's script (/assets/passkeys.<hash>.js) shows it where it can run.
import { Card, Csrf, Field, type Ui } from "./layout.js";

export interface PasskeyItem {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt?: number | undefined;
  synced: boolean;
}

export function PasskeysSection(p: { ui: Ui; csrf: string; passkeys: PasskeyItem[]; canAdd: boolean }) {
  const { t, date } = p.ui;
  return (
    <Card labelledBy="passkeys">
      <h2 id="passkeys">{t("passkeys.title")}</h2>
      <p class="muted">{t("passkeys.lead")}</p>
      {p.passkeys.length === 0 ? (
        <p class="muted" id="passkeys-none">
          {t("passkeys.none")}
        </p>
      ) : (
        <ul class="list passkeys">
          {p.passkeys.map((k, i) => (
            <li key={k.id} class="passkey">
              <div>
                <strong id={`passkey-${i}`} class="passkey-name">
                  {k.name}
                </strong>{" "}
                {k.synced ? <span class="badge">{t("passkeys.synced")}</span> : null}
                <p class="muted">
                  {t("passkeys.created", { date: date(k.createdAt) })}
                  <br />
                  {k.lastUsedAt === undefined
                    ? t("passkeys.neverUsed")
                    : t("passkeys.lastUsed", { date: date(k.lastUsedAt) })}
                </p>
              </div>
              <form method="post" action={`/account/passkeys/${encodeURIComponent(k.id)}/rename`} class="subsection">
                <Csrf token={p.csrf} />
                <Field
                  id={`passkey-name-${i}`}
                  name="name"
                  label={t("passkeys.renameLabel", { name: k.name })}
                  control={(a) => <input {...a} type="text" name="name" required maxLength={64} value={k.name} />}
                />
                <button type="submit" class="secondary">
                  {t("passkeys.rename")}
                </button>
              </form>
              <form method="post" action={`/account/passkeys/${encodeURIComponent(k.id)}/remove`}>
                <Csrf token={p.csrf} />
                <button type="submit" class="danger" aria-describedby={`passkey-${i}`}>
                  {t("passkeys.remove")}
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}
      {/* Shown by the script where WebAuthn works; without it the note below says why it is not there. */}
      {p.canAdd ? (
        <form id="passkey-add" class="subsection" hidden data-csrf={p.csrf} data-failed={t("passkeys.addFailed")}>
          <Field
            id="passkey-new-name"
            name="name"
            label={t("passkeys.addName")}
            hint={t("passkeys.addNameHint")}
            control={(a) => <input {...a} type="text" name="name" required maxLength={64} />}
          />
          <p class="field-error" id="passkey-add-error" role="alert" hidden></p>
          <button type="submit">{t("passkeys.add")}</button>
        </form>
      ) : null}
      {p.canAdd ? (
        <p class="muted" id="passkey-needs-js">
          {t("passkeys.needsJs")}
        </p>
      ) : null}
    </Card>
  );
}
