// The account page's sessions section: each browser signed in to the account (browser, address,
// last seen), this one marked, with "sign out" for each and "sign out everywhere else"
// (docs/http-api.md#account).
import { Card, Csrf, type Ui } from "./layout.js";

export interface SessionRow {
  /** The session's public id (never its sid). */
  id: string;
  /** "Firefox 120 on Linux", or undefined when the User-Agent says nothing recognisable. */
  browser?: string | undefined;
  address?: string | undefined;
  signedInAt: number;
  lastSeenAt: number;
  current: boolean;
}

export function AccountSessions(p: { ui: Ui; sessions: SessionRow[]; csrf: string }) {
  const { t } = p.ui;
  const others = p.sessions.filter((s) => !s.current).length;
  return (
    <Card labelledBy="sessions">
      <h2 id="sessions">{t("sessions.title")}</h2>
      <p class="muted">{t("sessions.lead")}</p>
      <ul class="list sessions">
        {p.sessions.map((s, i) => (
          <li key={s.id}>
            <span id={`session-${i}`}>
              <strong>{s.browser ?? t("sessions.unknownBrowser")}</strong>
              {s.current ? <> · {t("sessions.current")}</> : null}
              <br />
              <span class="muted">
                {t("sessions.seen", { time: p.ui.date(s.lastSeenAt), address: s.address ?? "?" })}
              </span>
            </span>
            <form method="post" action="/account/sessions/signout">
              <Csrf token={p.csrf} />
              <input type="hidden" name="session" value={s.id} />
              <button type="submit" class="secondary" aria-describedby={`session-${i}`}>
                {t("sessions.signOut")}
              </button>
            </form>
          </li>
        ))}
      </ul>
      {others > 0 ? (
        <form method="post" action="/account/sessions/signout-others">
          <Csrf token={p.csrf} />
          <button type="submit" class="danger">
            {t("sessions.signOutOthers")}
          </button>
        </form>
      ) : null}
    </Card>
  );
}
