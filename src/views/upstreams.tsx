// Upstream providers on the pages (docs/upstream-providers.md): "Continue with <name>" on /signin
// and /signup, and /account's list of linked identities. Each button is a form (POST with the CSRF
// token): a sign-in through an upstream is started by this page only, never by a link elsewhere.
import { Card, Csrf, type Ui } from "./layout.js";

export interface UpstreamButton {
  id: string;
  name: string;
}

export function UpstreamButtons(p: {
  ui: Ui;
  csrf: string;
  returnTo: string;
  upstreams: readonly UpstreamButton[];
  /** "Confirm it's you" through the upstream rather than a sign-in. */
  confirm?: boolean;
}) {
  if (p.upstreams.length === 0) return null;
  const { t } = p.ui;
  return (
    <div class="subsection">
      <p class="muted">{t("signin.or")}</p>
      {p.upstreams.map((u) => (
        <form
          key={u.id}
          method="post"
          action={`/upstream/${u.id}?${new URLSearchParams({ ...(p.confirm ? { confirm: "1" } : {}), return_to: p.returnTo })}`}
        >
          <Csrf token={p.csrf} />
          <button type="submit" class="secondary wide">
            {t("upstream.continueWith", { name: u.name })}
          </button>
        </form>
      ))}
    </div>
  );
}

export interface LinkedIdentity {
  upstream: string;
  /** The upstream's name (its button's), or its id when it is no longer configured. */
  name: string;
  issuer: string;
  subject: string;
  /** Who the upstream says it is: its email, else its sub. */
  who: string;
}

/** /account's card: the linked identities (unlink each), and a "Link <name>" for the others. */
export function AccountUpstreams(p: {
  ui: Ui;
  csrf: string;
  links: readonly LinkedIdentity[];
  upstreams: readonly UpstreamButton[];
}) {
  const { t } = p.ui;
  const unlinked = p.upstreams.filter((u) => !p.links.some((l) => l.upstream === u.id));
  return (
    <Card labelledBy="upstreams">
      <h2 id="upstreams">{t("account.upstreamsTitle")}</h2>
      {p.links.length === 0 ? (
        <p class="muted">{t("account.upstreamsNone")}</p>
      ) : (
        <ul class="list">
          {p.links.map((l, i) => (
            <li key={`${l.issuer} ${l.subject}`}>
              <span id={`upstream-${i}`}>{t("account.upstreamOf", { name: l.name, who: l.who })}</span>
              <form method="post" action="/account/upstreams/unlink">
                <Csrf token={p.csrf} />
                <input type="hidden" name="issuer" value={l.issuer} />
                <input type="hidden" name="subject" value={l.subject} />
                <button type="submit" class="danger" aria-describedby={`upstream-${i}`}>
                  {t("account.upstreamUnlink")}
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}
      {unlinked.map((u) => (
        <form key={u.id} method="post" action={`/upstream/${u.id}?link=1`} class="subsection">
          <Csrf token={p.csrf} />
          <button type="submit" class="secondary">
            {t("account.upstreamLink", { name: u.name })}
          </button>
        </form>
      ))}
    </Card>
  );
}
