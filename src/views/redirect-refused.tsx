// The 400 page of /authorize for a redirect URL the app has not registered (docs/http-api.md#get-auth_urlauthorize):
// it names the app and shows the redirect_uri that was sent, so its developer can fix one or the
// other. The value is only ever text on this page (preact escapes it), never a link or a redirect.
import { Card, Page, type Ui } from "./layout.js";

/** How much of the sent value is shown, in code points (a request line may carry 16 KB of it). */
export const SHOWN_REDIRECT = 300;

/** The value as shown: control characters percent-encoded (as they travel in a URL), cut at SHOWN_REDIRECT. */
export function shownRedirect(sent: string): { text: string; total: number; cut: boolean } {
  const chars = [...sent.replace(/[\x00-\x1f\x7f]/g, (c) => encodeURIComponent(c))];
  const cut = chars.length > SHOWN_REDIRECT;
  return { text: cut ? `${chars.slice(0, SHOWN_REDIRECT).join("")}…` : chars.join(""), total: chars.length, cut };
}

export function RedirectRefusedPage(p: {
  ui: Ui;
  appName: string;
  /** The redirect_uri of the request; undefined when it sent none (and the app registered several). */
  sent: string | undefined;
}) {
  const { t, rich } = p.ui;
  const service = p.ui.service.name;
  const shown = p.sent === undefined ? undefined : shownRedirect(p.sent);
  return (
    <Page ui={p.ui} title={t("error.brokenLink")} narrow>
      <div class="error" role="alert">
        <p>{rich("redirect.refused", { app: <strong class="app-name">{p.appName}</strong>, service })}</p>
      </div>
      <Card labelledBy="for-developers">
        <h2 id="for-developers">{t("redirect.forDevelopers")}</h2>
        {shown ? (
          <>
            <p>{t("redirect.sent")}</p>
            <p>
              <code class="sent-redirect">{shown.text}</code>
            </p>
            {shown.cut ? (
              <p class="muted redirect-shortened">
                {t("redirect.shortened", { shown: SHOWN_REDIRECT, total: shown.total })}
              </p>
            ) : null}
          </>
        ) : (
          <p>{t("redirect.none")}</p>
        )}
        <p>{t("redirect.fix", { service })}</p>
      </Card>
      <p>
        <a href="/account">{p.ui.t("error.goAccount")}</a>
      </p>
    </Page>
  );
}
