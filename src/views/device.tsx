// The /device pages (docs/pages.md#device): the user types the code their device shows (or finds it
// filled in from verification_uri_complete), then sees the consent page (consent.tsx), then this
// page's word that the device is connected or not.
import type { UserRecord } from "../store/port.js";
import { Card, Csrf, ErrorNote, Field, Notice, Page, type FormProblem, type Ui } from "./layout.js";

export function DeviceEntryPage(p: {
  ui: Ui;
  user: UserRecord;
  csrf: string;
  /** The code filled in (from the link, or what was typed before an error). */
  value: string;
  problem?: FormProblem | undefined;
}) {
  const { t } = p.ui;
  return (
    <Page ui={p.ui} title={t("device.title")} user={p.user} csrf={p.csrf} narrow>
      <p class="lead">{t("device.lead", { service: p.ui.service.name })}</p>
      <ErrorNote ui={p.ui} problem={p.problem} fields={["user_code"]} />
      <Card>
        <form method="post" action="/device">
          <Csrf token={p.csrf} />
          <Field
            id="user_code"
            name="user_code"
            label={t("device.codeLabel")}
            hint={t("device.codeHint")}
            problem={p.problem}
            control={(a) => (
              <input
                {...a}
                type="text"
                name="user_code"
                class="mono"
                autocomplete="one-time-code"
                autocapitalize="characters"
                spellcheck={false}
                required
                maxLength={40}
                value={p.value}
              />
            )}
          />
          <div class="actions">
            <button type="submit">{t("device.continue")}</button>
          </div>
        </form>
      </Card>
    </Page>
  );
}

/** After the decision: connected (allowed) or not (denied). */
export function DeviceDonePage(p: { ui: Ui; user: UserRecord; csrf: string; appName: string; allowed: boolean }) {
  const { t } = p.ui;
  return (
    <Page
      ui={p.ui}
      title={t(p.allowed ? "device.allowedTitle" : "device.deniedTitle")}
      user={p.user}
      csrf={p.csrf}
      narrow
    >
      <Notice>
        <p>{t(p.allowed ? "device.allowedBody" : "device.deniedBody", { app: p.appName })}</p>
      </Notice>
      <p>
        <a href="/account">{t("error.goAccount")}</a>
      </p>
    </Page>
  );
}
